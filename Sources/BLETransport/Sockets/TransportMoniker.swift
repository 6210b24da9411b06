/// Where a host's HCI byte stream goes, named as Bumble names its transports (`tcp-client:HOST:PORT`,
/// `serial:DEVICE,SPEED`, …), so a command line that works with Bumble works here.
///
/// Every stream transport carries the UART transport's framing unchanged (Core 5.4 Vol 4 Part A
/// §2): a packet indicator octet, then the HCI packet — no handshake, as Bumble's and Android's
/// HCI-over-TCP.
public enum TransportMoniker: Sendable, Hashable, CustomStringConvertible {
    /// The in-process virtual radio.
    case virtual
    /// Connect to a controller listening on `host:port`.
    case tcpClient(host: String, port: UInt16)
    /// Listen on `host:port` (`_` for every interface, port 0 for one the system picks).
    case tcpServer(host: String, port: UInt16)
    /// A UNIX-domain stream socket at `path`.
    case unix(path: String)
    /// A serial line carrying H4 (a UART dongle).
    case serial(SerialLine)
    /// The Linux HCI user channel of adapter `index` (hci0 is 0).
    case hciSocket(index: UInt16)

    /// The part before the first colon.
    public enum Scheme: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        case virtual
        case tcpClient = "tcp-client"
        case tcpServer = "tcp-server"
        case unix
        case serial
        case hciSocket = "hci-socket"

        public var description: String { rawValue }

        /// The moniker's form, for error messages and help.
        public var usage: String {
            switch self {
            case .virtual: "virtual"
            case .tcpClient: "tcp-client:HOST:PORT"
            case .tcpServer: "tcp-server:HOST:PORT"
            case .unix: "unix:PATH"
            case .serial: "serial:DEVICE[,SPEED][,rtscts][,dsrdtr]"
            case .hciSocket: "hci-socket[:INDEX]"
            }
        }
    }

    /// A serial device and its line settings; Bumble's defaults (1 000 000 baud, no hardware
    /// flow control) apply to what the moniker leaves out.
    public struct SerialLine: Sendable, Hashable {
        public var device: String
        /// Baud rate; nil for the default.
        public var speed: UInt32?
        /// RTS/CTS hardware flow control (the UART transport's setting, Core 5.4 Vol 4 Part A §3).
        public var rtsCTS: Bool
        /// DSR/DTR hardware flow control.
        public var dsrDTR: Bool

        public static let defaultSpeed: UInt32 = 1_000_000

        public init(device: String, speed: UInt32? = nil, rtsCTS: Bool = false, dsrDTR: Bool = false) {
            self.device = device
            self.speed = speed
            self.rtsCTS = rtsCTS
            self.dsrDTR = dsrDTR
        }
    }

    public var scheme: Scheme {
        switch self {
        case .virtual: .virtual
        case .tcpClient: .tcpClient
        case .tcpServer: .tcpServer
        case .unix: .unix
        case .serial: .serial
        case .hciSocket: .hciSocket
        }
    }

    /// The canonical text; parsing it gives this moniker back.
    public var description: String {
        switch self {
        case .virtual: "virtual"
        case .tcpClient(let host, let port): "tcp-client:\(Self.render(host: host)):\(port)"
        case .tcpServer(let host, let port): "tcp-server:\(Self.render(host: host)):\(port)"
        case .unix(let path): "unix:\(path)"
        case .serial(let line):
            "serial:"
                + ([line.device] + (line.speed.map { ["\($0)"] } ?? []) + (line.rtsCTS ? ["rtscts"] : [])
                + (line.dsrDTR ? ["dsrdtr"] : [])).joined(separator: ",")
        case .hciSocket(let index): "hci-socket:\(index)"
        }
    }

    private static func render(host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

/// Why a moniker could not be parsed.
public enum TransportMonikerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The parts of a moniker that can be missing.
    public enum Part: String, Sendable, Hashable, CustomStringConvertible {
        case host, port, path, device
        public var description: String { rawValue }
    }

    /// Nothing at all.
    case empty
    /// A scheme this stack does not know.
    case unknownScheme(String)
    /// A required part is absent or empty.
    case missing(TransportMoniker.Scheme, Part)
    /// Not a decimal port in 1…65535 (0 is allowed for `tcp-server`: the system picks).
    case invalidPort(TransportMoniker.Scheme, String)
    /// An IPv6 address without brackets (its colons are ambiguous) or unbalanced brackets.
    case invalidHost(TransportMoniker.Scheme, String)
    /// Not a positive decimal baud rate.
    case invalidSpeed(String)
    /// A serial option other than a speed, `rtscts` or `dsrdtr`.
    case unknownSerialOption(String)
    /// Not a decimal adapter index in 0…65535.
    case invalidAdapterIndex(String)
    /// Text after a scheme that takes none.
    case unexpectedParameters(TransportMoniker.Scheme, String)

    public var description: String {
        switch self {
        case .empty:
            "empty transport moniker; expected one of: "
                + TransportMoniker.Scheme.allCases.map(\.usage).joined(separator: ", ")
        case .unknownScheme(let scheme):
            "unknown transport scheme '\(scheme)'; expected one of: "
                + TransportMoniker.Scheme.allCases.map(\.usage).joined(separator: ", ")
        case .missing(let scheme, let part): "\(scheme) moniker has no \(part); expected \(scheme.usage)"
        case .invalidPort(let scheme, let text):
            "\(scheme) port '\(text)' is not a number in \(scheme == .tcpServer ? "0" : "1")…65535"
        case .invalidHost(let scheme, let text):
            "\(scheme) host '\(text)' is not usable (write an IPv6 address in brackets: [::1])"
        case .invalidSpeed(let text): "serial speed '\(text)' is not a positive baud rate"
        case .unknownSerialOption(let text):
            "serial option '\(text)' is not a speed, rtscts or dsrdtr; expected \(TransportMoniker.Scheme.serial.usage)"
        case .invalidAdapterIndex(let text): "hci-socket index '\(text)' is not a number in 0…65535"
        case .unexpectedParameters(let scheme, let text):
            "\(scheme) takes no parameters, got '\(text)'; expected \(scheme.usage)"
        }
    }
}

extension TransportMoniker {
    /// Parses a moniker: the scheme before the first colon, its parameters after it.
    public init(parsing text: String) throws(TransportMonikerError) {
        guard !text.isEmpty else { throw .empty }
        let schemeText: Substring
        let parameters: Substring?
        if let colon = text.firstIndex(of: ":") {
            schemeText = text[..<colon]
            parameters = text[text.index(after: colon)...]
        } else {
            schemeText = text[...]
            parameters = nil
        }
        guard let scheme = Scheme(rawValue: String(schemeText)) else { throw .unknownScheme(String(schemeText)) }
        switch scheme {
        case .virtual:
            if let parameters { throw .unexpectedParameters(.virtual, String(parameters)) }
            self = .virtual
        case .tcpClient:
            let (host, port) = try Self.hostAndPort(parameters, scheme: scheme, allowsPortZero: false)
            self = .tcpClient(host: host, port: port)
        case .tcpServer:
            let (host, port) = try Self.hostAndPort(parameters, scheme: scheme, allowsPortZero: true)
            self = .tcpServer(host: host, port: port)
        case .unix:
            guard let parameters, !parameters.isEmpty else { throw .missing(.unix, .path) }
            self = .unix(path: String(parameters))
        case .serial:
            self = .serial(try Self.serialLine(parameters))
        case .hciSocket:
            guard let parameters else {
                self = .hciSocket(index: 0)
                return
            }
            guard !parameters.isEmpty, parameters.allSatisfy(\.isASCIIDigit), let index = UInt16(parameters)
            else { throw .invalidAdapterIndex(String(parameters)) }
            self = .hciSocket(index: index)
        }
    }

    /// `HOST:PORT`, split at the last colon; an IPv6 host is written in brackets.
    private static func hostAndPort(
        _ parameters: Substring?, scheme: Scheme, allowsPortZero: Bool
    ) throws(TransportMonikerError) -> (String, UInt16) {
        guard let parameters, !parameters.isEmpty else { throw .missing(scheme, .host) }
        guard let colon = parameters.lastIndex(of: ":") else { throw .missing(scheme, .port) }
        var host = parameters[..<colon]
        let portText = parameters[parameters.index(after: colon)...]
        if host.first == "[" || host.last == "]" {
            guard host.count > 2, host.first == "[", host.last == "]" else {
                throw .invalidHost(scheme, String(host))
            }
            host = host.dropFirst().dropLast()
            guard host.contains(":"), !host.contains("["), !host.contains("]") else {
                throw .invalidHost(scheme, String(host))
            }
        } else if host.contains(":") {
            throw .invalidHost(scheme, String(host))
        }
        guard !host.isEmpty else { throw .missing(scheme, .host) }
        guard !portText.isEmpty else { throw .missing(scheme, .port) }
        guard portText.allSatisfy(\.isASCIIDigit), let port = UInt16(portText), port != 0 || allowsPortZero else {
            throw .invalidPort(scheme, String(portText))
        }
        return (String(host), port)
    }

    /// `DEVICE[,SPEED][,rtscts][,dsrdtr]`, as Bumble's serial transport.
    private static func serialLine(_ parameters: Substring?) throws(TransportMonikerError) -> SerialLine {
        guard let parameters else { throw .missing(.serial, .device) }
        let parts = parameters.split(separator: ",", omittingEmptySubsequences: false)
        guard let device = parts.first, !device.isEmpty else { throw .missing(.serial, .device) }
        var line = SerialLine(device: String(device))
        for option in parts.dropFirst() {
            switch option {
            case "rtscts": line.rtsCTS = true
            case "dsrdtr": line.dsrDTR = true
            case _ where !option.isEmpty && option.allSatisfy(\.isASCIIDigit):
                guard line.speed == nil, let speed = UInt32(option), speed > 0 else {
                    throw .invalidSpeed(String(option))
                }
                line.speed = speed
            default:
                if option.first.map({ $0.isASCIIDigit || $0 == "-" || $0 == "+" }) ?? false {
                    throw .invalidSpeed(String(option))
                }
                throw .unknownSerialOption(String(option))
            }
        }
        return line
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
