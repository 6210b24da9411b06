/// The URI scheme name string mapping of the Assigned Numbers (§2.7), used by the URI data type
/// (CSS Part A §1.18): the scheme of an advertised URI is replaced by one code point, encoded in
/// UTF-8 as the first character of the data. Code point 0x01 stands for "no scheme name
/// replaced": the whole URI follows as written.
public enum ADURIScheme {
    /// The code point meaning that the URI's scheme was not replaced.
    public static let emptyScheme: UInt32 = 0x01

    /// Scheme names, colon included, for code points 0x02 onward (index 0 is code point 0x02).
    static let names: [StaticString] = [
        "aaa:", "aaas:", "about:", "acap:", "acct:", "cap:", "cid:", "coap:", "coaps:", "crid:", "data:",
        "dav:", "dict:", "dns:", "file:", "ftp:", "geo:", "go:", "gopher:", "h323:", "http:", "https:",
        "iax:", "icap:", "im:", "imap:", "info:", "ipp:", "ipps:", "iris:", "iris.beep:", "iris.xpc:",
        "iris.xpcs:", "iris.lwz:", "jabber:", "ldap:", "mailto:", "mid:", "msrp:", "msrps:", "mtqp:",
        "mupdate:", "news:", "nfs:", "ni:", "nih:", "nntp:", "opaquelocktoken:", "pop:", "pres:",
        "reload:", "rtsp:", "rtsps:", "rtspu:", "service:", "session:", "shttp:", "sieve:", "sip:",
        "sips:", "sms:", "snmp:", "soap.beep:", "soap.beeps:", "stun:", "stuns:", "tag:", "tel:",
        "telnet:", "tftp:", "thismessage:", "tn3270:", "tip:", "turn:", "turns:", "tv:", "urn:", "vemmi:",
        "ws:", "wss:", "xcon:", "xcon-userid:", "xmlrpc.beep:", "xmlrpc.beeps:", "xmpp:", "z39.50r:",
        "z39.50s:", "acr:", "adiumxtra:", "afp:", "afs:", "aim:", "apt:", "attachment:", "aw:", "barion:",
        "beshare:", "bitcoin:", "bolo:", "callto:", "chrome:", "chrome-extension:",
        "com-eventbrite-attendee:", "content:", "cvs:", "dlna-playsingle:", "dlna-playcontainer:", "dtn:",
        "dvb:", "ed2k:", "facetime:", "feed:", "feedready:", "finger:", "fish:", "gg:", "git:",
        "gizmoproject:", "gtalk:", "ham:", "hcp:", "icon:", "ipn:", "irc:", "irc6:", "ircs:", "itms:",
        "jar:", "jms:", "keyparc:", "lastfm:", "ldaps:", "magnet:", "maps:", "market:", "message:", "mms:",
        "ms-help:", "ms-settings-power:", "msnim:", "mumble:", "mvn:", "notes:", "oid:", "palm:",
        "paparazzi:", "pkcs11:", "platform:", "proxy:", "psyc:", "query:", "res:", "resource:", "rmi:",
        "rsync:", "rtmfp:", "rtmp:", "secondlife:", "sftp:", "sgn:", "skype:", "smb:", "smtp:", "soldat:",
        "spotify:", "ssh:", "steam:", "submit:", "svn:", "teamspeak:", "teliaeid:", "things:", "udp:",
        "unreal:", "ut2004:", "ventrilo:", "view-source:", "webcal:", "wtai:", "wyciwyg:", "xfire:",
        "xri:", "ymsgr:", "example:", "ms-settings-cloudstorage:", "bluetooth:", "bl:",
    ]

    /// The scheme name ("https:") for a code point, or nil when the table has none (0x01 included).
    public static func name(for codePoint: UInt32) -> StaticString? {
        guard codePoint >= 0x02 else { return nil }
        let index = Int(codePoint - 0x02)
        return index < names.count ? names[index] : nil
    }

    /// The code point of a scheme name such as "https:", if the table has one. The match is
    /// exact (the table is lower case), so a URI written "HTTP:…" travels unchanged after 0x01.
    public static func codePoint(for scheme: Substring) -> UInt32? {
        for (index, name) in names.enumerated() where name.description == scheme {
            return UInt32(index + 0x02)
        }
        return nil
    }

    /// Splits a URI into its code point and the text that follows it: "https://x" gives
    /// (0x17, "//x"); a URI whose scheme is not in the table gives (0x01, the whole URI).
    public static func compress(_ uri: String) -> (codePoint: UInt32, rest: Substring) {
        if let colon = uri.firstIndex(of: ":") {
            let schemeEnd = uri.index(after: colon)
            if let code = codePoint(for: uri[..<schemeEnd]) {
                return (code, uri[schemeEnd...])
            }
        }
        return (emptyScheme, uri[...])
    }

    /// Appends a code point in UTF-8 (one octet below 0x80, two below 0x800, three above).
    static func appendUTF8(_ codePoint: UInt32, to bytes: inout [UInt8]) {
        switch codePoint {
        case 0..<0x80:
            bytes.append(UInt8(truncatingIfNeeded: codePoint))
        case 0x80..<0x800:
            bytes.append(0xC0 | UInt8(truncatingIfNeeded: codePoint >> 6))
            bytes.append(0x80 | UInt8(truncatingIfNeeded: codePoint & 0x3F))
        default:
            bytes.append(0xE0 | UInt8(truncatingIfNeeded: (codePoint >> 12) & 0x0F))
            bytes.append(0x80 | UInt8(truncatingIfNeeded: (codePoint >> 6) & 0x3F))
            bytes.append(0x80 | UInt8(truncatingIfNeeded: codePoint & 0x3F))
        }
    }

    /// The outcome of reading the scheme code point at the start of URI data.
    @usableFromInline
    enum Lead: Equatable {
        /// A well-formed UTF-8 sequence of `width` octets encoding `codePoint`.
        case codePoint(UInt32, width: Int)
        /// The data ends inside the sequence: `needed` octets in all, `available` present.
        case truncated(needed: Int, available: Int)
        /// The octet at `position` (from the start of the data) cannot appear there in UTF-8.
        case invalid(octet: UInt8, position: Int)
    }

    /// Reads the first UTF-8 scalar of `data` without allocating (RFC 3629 §4 well-formedness).
    @usableFromInline
    static func lead<Data: RandomAccessCollection<UInt8>>(of data: Data) -> Lead
    where Data.Index == Int {
        guard let first = data.first else { return .truncated(needed: 1, available: 0) }
        let width: Int
        var value: UInt32
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0x00...0x7F: return .codePoint(UInt32(first), width: 1)
        case 0xC2...0xDF:
            width = 2
            value = UInt32(first & 0x1F)
        case 0xE0:
            width = 3
            value = 0
            secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF:
            width = 3
            value = UInt32(first & 0x0F)
        case 0xED:
            width = 3
            value = 0x0D
            secondRange = 0x80...0x9F
        case 0xF0:
            width = 4
            value = 0
            secondRange = 0x90...0xBF
        case 0xF1...0xF3:
            width = 4
            value = UInt32(first & 0x07)
        case 0xF4:
            width = 4
            value = 4
            secondRange = 0x80...0x8F
        default: return .invalid(octet: first, position: 0)
        }
        if data.count < width { return .truncated(needed: width, available: data.count) }
        for position in 1..<width {
            let octet = data[data.startIndex &+ position]
            let allowed = position == 1 ? secondRange : 0x80...0xBF
            if !allowed.contains(octet) { return .invalid(octet: octet, position: position) }
            value = value << 6 | UInt32(octet & 0x3F)
        }
        return .codePoint(value, width: width)
    }
}
