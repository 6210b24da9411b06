import BLEWire
import Logging

extension VirtualController {
    /// What kind of chip a virtual controller is: addresses, buffers, limits and identity.
    ///
    /// Every value is what the controller reports through HCI and then honours: the ACL buffer
    /// count and size (Core 5.4 Vol 4 Part E §7.8.2), the maximum data length (§7.8.46), the
    /// number of advertising sets (§7.8.58), the LE features (Vol 6 Part B §4.6).
    public struct Configuration: Sendable {
        /// The public device address (Vol 6 Part B §1.3.1); nil derives one from the radio's
        /// attach order in the IEEE documentation range 00:00:5E:00:53:xx.
        public var publicAddress: BluetoothAddress?
        /// The random static address used when the host asks for a random own address and has
        /// not set one (Vol 6 Part B §1.3.2.1); nil draws one from the controller's generator.
        public var randomStaticAddress: BluetoothAddress?
        /// Seed of the controller's own generator (advDelay, channels, LE Rand, …); nil draws
        /// one from the air's generator when the controller is attached.
        public var seed: UInt64?
        /// LE_ACL_Data_Packet_Length: the largest ACL data packet the host may send.
        public var aclBufferSize: UInt16
        /// Total_Num_LE_ACL_Data_Packets: how many the controller can hold.
        public var aclBufferCount: UInt8
        /// Connections (both roles) the controller supports at once.
        public var maximumConnections: Int
        /// How connection events are filled (end rule, packets-per-event cap).
        public var scheduling: LinkLayerScheduling
        /// Num_HCI_Command_Packets reported in Command Complete and Command Status.
        public var commandCredits: UInt8
        /// Time between a command's arrival and its completion event.
        public var commandLatency: Duration
        /// Transmit power used when the host states no preference, in dBm.
        public var txPower: Int8
        /// The transmit powers the radio can use (LE Read Transmit Power, §7.8.74).
        public var txPowerRange: ClosedRange<Int8>
        /// Num_Supported_Advertising_Sets (§7.8.58).
        public var advertisingSets: UInt8
        /// Max_Advertising_Data_Length (§7.8.57), at most 1650.
        public var maximumAdvertisingDataLength: Int
        /// Filter Accept List entries (§7.8.14).
        public var filterAcceptListSize: UInt8
        /// Resolving list entries (§7.8.41).
        public var resolvingListSize: UInt8
        /// When Number Of Completed Packets is sent (§7.7.19): never before the peer has
        /// acknowledged the packet on air.
        public var completedPacketsReporting: CompletedPacketsReporting
        /// Supported_Max_TX/RX_Octets and _Time (§7.8.46).
        public var supportedMaxTxOctets: UInt16
        public var supportedMaxTxTime: UInt16
        public var supportedMaxRxOctets: UInt16
        public var supportedMaxRxTime: UInt16
        /// The LE features the controller implements and reports (Vol 6 Part B §4.6).
        public var leFeatures: LEFeatures
        /// HCI_Version, HCI_Subversion, LMP_Version, Company_Identifier, LMP_Subversion
        /// (§7.4.1); 0x0D is Core 5.4, company 0xFFFF is reserved for tests.
        public var hciVersion: UInt8
        public var hciSubversion: UInt16
        public var lmpVersion: UInt8
        public var companyIdentifier: UInt16
        public var lmpSubversion: UInt16
        /// Sleep clock accuracy code sent as central (0x00–0x07, Vol 6 Part B §2.3.3.1).
        public var sleepClockAccuracy: UInt8
        /// The host's ACL packet length assumed until it sends Host Buffer Size (§7.3.39).
        public var defaultHostACLDataPacketLength: UInt16
        /// Where the controller logs what it drops from its host (counted in
        /// `VirtualController.statistics`), at `.notice` or `.warning`. Silent unless set.
        public var logger = Logger(label: "ble.controller", factory: { _ in SwiftLogNoOpLogHandler() })

        /// The features this implementation supports (all can be removed, none added).
        public static let implementedFeatures: LEFeatures = [
            .leEncryption, .connectionParametersRequestProcedure, .extendedRejectIndication,
            .peripheralInitiatedFeaturesExchange, .leDataPacketLengthExtension, .le2MPHY, .leCodedPHY,
            .leExtendedAdvertising, .channelSelectionAlgorithm2, .llPrivacy,
        ]

        public init(
            publicAddress: BluetoothAddress? = nil, randomStaticAddress: BluetoothAddress? = nil,
            seed: UInt64? = nil, aclBufferSize: UInt16 = 251, aclBufferCount: UInt8 = 8,
            maximumConnections: Int = 4, commandCredits: UInt8 = 1, commandLatency: Duration = .zero,
            txPower: Int8 = 0, txPowerRange: ClosedRange<Int8> = -20...10, advertisingSets: UInt8 = 4,
            maximumAdvertisingDataLength: Int = 1650, filterAcceptListSize: UInt8 = 8,
            supportedMaxTxOctets: UInt16 = 251, supportedMaxTxTime: UInt16 = 17040,
            supportedMaxRxOctets: UInt16 = 251, supportedMaxRxTime: UInt16 = 17040,
            leFeatures: LEFeatures = Configuration.implementedFeatures,
            hciVersion: UInt8 = 0x0D, hciSubversion: UInt16 = 0x0001, lmpVersion: UInt8 = 0x0D,
            companyIdentifier: UInt16 = 0xFFFF, lmpSubversion: UInt16 = 0x0001, sleepClockAccuracy: UInt8 = 0x05,
            defaultHostACLDataPacketLength: UInt16 = 251, scheduling: LinkLayerScheduling = LinkLayerScheduling(),
            resolvingListSize: UInt8 = 8, completedPacketsReporting: CompletedPacketsReporting = .endOfEvent
        ) {
            self.resolvingListSize = resolvingListSize
            self.completedPacketsReporting = completedPacketsReporting
            self.scheduling = scheduling
            self.publicAddress = publicAddress
            self.randomStaticAddress = randomStaticAddress
            self.seed = seed
            self.aclBufferSize = aclBufferSize
            self.aclBufferCount = aclBufferCount
            self.maximumConnections = maximumConnections
            self.commandCredits = commandCredits
            self.commandLatency = commandLatency
            self.txPower = txPower
            self.txPowerRange = txPowerRange
            self.advertisingSets = advertisingSets
            self.maximumAdvertisingDataLength = min(1650, maximumAdvertisingDataLength)
            self.filterAcceptListSize = filterAcceptListSize
            self.supportedMaxTxOctets = supportedMaxTxOctets
            self.supportedMaxTxTime = supportedMaxTxTime
            self.supportedMaxRxOctets = supportedMaxRxOctets
            self.supportedMaxRxTime = supportedMaxRxTime
            self.leFeatures = leFeatures.intersection(Configuration.implementedFeatures)
            self.hciVersion = hciVersion
            self.hciSubversion = hciSubversion
            self.lmpVersion = lmpVersion
            self.companyIdentifier = companyIdentifier
            self.lmpSubversion = lmpSubversion
            self.sleepClockAccuracy = sleepClockAccuracy
            self.defaultHostACLDataPacketLength = defaultHostACLDataPacketLength
        }
    }

    /// When the controller tells its host that ACL buffers are free again with Number Of
    /// Completed Packets (Core 5.4 Vol 4 Part E §7.7.19). Whatever the policy, a packet counts
    /// only once the peer has acknowledged all of it on air.
    ///
    /// A connection event is planned whole at its anchor (the air-time model pulls the packets it
    /// sends from the queue then), so buffers the host refills after an early report are sent
    /// from the next connection event, not the current one.
    public enum CompletedPacketsReporting: Sendable, Hashable {
        /// One event per connection when the connection event ends, counting every packet
        /// acknowledged in it.
        case endOfEvent
        /// One event for each packet, as its acknowledgement arrives.
        case perAcknowledgement
        /// An event as soon as `threshold` packets of a connection have completed, and one for
        /// the rest when the connection event ends, whichever comes first (a threshold below 1
        /// counts as 1).
        case coalesced(threshold: Int)
    }

    /// What a controller dropped from its host, counted; each count goes with a log line.
    public struct Statistics: Sendable, Equatable {
        /// Command packets that did not decode (Core 5.4 Vol 4 Part E §5.4.1).
        public var undecodableCommands = 0
        /// ACL data packets that did not decode (§5.4.2).
        public var undecodableACL = 0
        /// ACL data packets for no live connection (§7.7.5: the host counts them as flushed).
        public var aclForUnknownHandle = 0
        /// ACL data packets beyond the advertised buffers, reported with Data Buffer Overflow
        /// (§7.7.26).
        public var bufferOverflows = 0
        /// SCO or ISO packets, which have nowhere to go here.
        public var unexpectedPackets = 0
        /// Byte streams from the host that could not be framed (Vol 4 Part A §2).
        public var transportFailures = 0
        /// Commands the host sent beyond the credit of the latest Command Complete or Command
        /// Status (Num_HCI_Command_Packets, Vol 4 Part E §4.4); handled in order all the same.
        public var commandsBeyondCredit = 0

        public init() {}
    }

    /// Why a controller stopped reading its host's byte stream (Core 5.4 Vol 4 Part A §2: the
    /// UART transport cannot resynchronise).
    public enum TransportFailure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The stream could not be framed (unknown packet indicator, impossible length).
        case framing(H4StreamError)
        /// A packet a host never sends to a controller (an HCI event).
        case unexpectedPacketType(H4PacketType)

        public var description: String {
            switch self {
            case .framing(let error): error.description
            case .unexpectedPacketType(let type): "H4 stream: host sent a \(type) packet"
            }
        }
    }
}
