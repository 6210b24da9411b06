import BLETransport
import Testing

@Suite("Transport monikers (Bumble's transport names)")
struct TransportMonikerTests {
    @Test(
        "Every form parses, and its canonical text parses back to the same moniker",
        arguments: [
            ("virtual", TransportMoniker.virtual),
            ("tcp-client:127.0.0.1:9001", .tcpClient(host: "127.0.0.1", port: 9001)),
            ("tcp-client:localhost:1", .tcpClient(host: "localhost", port: 1)),
            ("tcp-client:[::1]:65535", .tcpClient(host: "::1", port: 65535)),
            ("tcp-server:127.0.0.1:0", .tcpServer(host: "127.0.0.1", port: 0)),
            ("tcp-server:_:9001", .tcpServer(host: "_", port: 9001)),
            ("tcp-server:[fe80::1]:9002", .tcpServer(host: "fe80::1", port: 9002)),
            ("unix:/tmp/controller.sock", .unix(path: "/tmp/controller.sock")),
            ("unix:relative:with:colons", .unix(path: "relative:with:colons")),
            ("serial:/dev/ttyUSB0", .serial(.init(device: "/dev/ttyUSB0"))),
            ("serial:/dev/ttyACM0,115200", .serial(.init(device: "/dev/ttyACM0", speed: 115_200))),
            (
                "serial:/dev/ttyACM0,1000000,rtscts,dsrdtr",
                .serial(.init(device: "/dev/ttyACM0", speed: 1_000_000, rtsCTS: true, dsrDTR: true))
            ),
            ("serial:/dev/tty.usbmodem1,rtscts", .serial(.init(device: "/dev/tty.usbmodem1", rtsCTS: true))),
            ("hci-socket", .hciSocket(index: 0)),
            ("hci-socket:0", .hciSocket(index: 0)),
            ("hci-socket:3", .hciSocket(index: 3)),
        ])
    func parses(text: String, expected: TransportMoniker) throws {
        let moniker = try TransportMoniker(parsing: text)
        #expect(moniker == expected)
        #expect(try TransportMoniker(parsing: moniker.description) == moniker)
    }

    @Test("Schemes: the part before the first colon")
    func schemes() throws {
        #expect(try TransportMoniker(parsing: "tcp-client:h:1").scheme == .tcpClient)
        #expect(try TransportMoniker(parsing: "tcp-server:h:1").scheme == .tcpServer)
        #expect(try TransportMoniker(parsing: "unix:p").scheme == .unix)
        #expect(try TransportMoniker(parsing: "serial:d").scheme == .serial)
        #expect(try TransportMoniker(parsing: "hci-socket").scheme == .hciSocket)
        #expect(try TransportMoniker(parsing: "virtual").scheme == .virtual)
        #expect(
            TransportMoniker.serial(.init(device: "/dev/ttyUSB0", speed: 9600)).description
                == "serial:/dev/ttyUSB0,9600")
        #expect(TransportMoniker.tcpClient(host: "::1", port: 7).description == "tcp-client:[::1]:7")
    }

    @Test(
        "Malformed monikers are typed errors that say what is wrong",
        arguments: [
            ("", TransportMonikerError.empty),
            ("bluetooth", .unknownScheme("bluetooth")),
            ("TCP-CLIENT:h:1", .unknownScheme("TCP-CLIENT")),
            ("usb:0", .unknownScheme("usb")),
            (":9001", .unknownScheme("")),
            ("virtual:1", .unexpectedParameters(.virtual, "1")),
            ("virtual:", .unexpectedParameters(.virtual, "")),
            ("tcp-client", .missing(.tcpClient, .host)),
            ("tcp-client:", .missing(.tcpClient, .host)),
            ("tcp-client:localhost", .missing(.tcpClient, .port)),
            ("tcp-client:localhost:", .missing(.tcpClient, .port)),
            ("tcp-client::9001", .missing(.tcpClient, .host)),
            ("tcp-client:h:0", .invalidPort(.tcpClient, "0")),
            ("tcp-client:h:65536", .invalidPort(.tcpClient, "65536")),
            ("tcp-client:h:-1", .invalidPort(.tcpClient, "-1")),
            ("tcp-client:h:+80", .invalidPort(.tcpClient, "+80")),
            ("tcp-client:h:http", .invalidPort(.tcpClient, "http")),
            ("tcp-client:h:99999999999999999999", .invalidPort(.tcpClient, "99999999999999999999")),
            ("tcp-server:h:١٢", .invalidPort(.tcpServer, "١٢")),
            ("tcp-server", .missing(.tcpServer, .host)),
            ("tcp-server:127.0.0.1", .missing(.tcpServer, .port)),
            ("tcp-server:127.0.0.1:65536", .invalidPort(.tcpServer, "65536")),
            ("tcp-client:::1:80", .invalidHost(.tcpClient, "::1")),
            ("tcp-client:[::1:80", .invalidHost(.tcpClient, "[::1")),
            ("tcp-client:[]:80", .invalidHost(.tcpClient, "[]")),
            ("tcp-client:[host]:80", .invalidHost(.tcpClient, "host")),
            ("unix", .missing(.unix, .path)),
            ("unix:", .missing(.unix, .path)),
            ("serial", .missing(.serial, .device)),
            ("serial:", .missing(.serial, .device)),
            ("serial:,115200", .missing(.serial, .device)),
            ("serial:/dev/ttyUSB0,0", .invalidSpeed("0")),
            ("serial:/dev/ttyUSB0,-9600", .invalidSpeed("-9600")),
            ("serial:/dev/ttyUSB0,99999999999", .invalidSpeed("99999999999")),
            ("serial:/dev/ttyUSB0,9600,115200", .invalidSpeed("115200")),
            ("serial:/dev/ttyUSB0,fast", .unknownSerialOption("fast")),
            ("serial:/dev/ttyUSB0,", .unknownSerialOption("")),
            ("hci-socket:", .invalidAdapterIndex("")),
            ("hci-socket:hci0", .invalidAdapterIndex("hci0")),
            ("hci-socket:-1", .invalidAdapterIndex("-1")),
            ("hci-socket:65536", .invalidAdapterIndex("65536")),
        ])
    func malformed(text: String, expected: TransportMonikerError) {
        #expect(throws: expected) { try TransportMoniker(parsing: text) }
    }

    @Test("Error descriptions name the expected form")
    func errorDescriptions() {
        #expect(TransportMonikerError.missing(.tcpClient, .port).description.contains("tcp-client:HOST:PORT"))
        #expect(TransportMonikerError.unknownScheme("usb").description.contains("hci-socket[:INDEX]"))
        #expect(TransportMonikerError.invalidPort(.tcpServer, "x").description.contains("0…65535"))
        #expect(TransportMonikerError.invalidPort(.tcpClient, "0").description.contains("1…65535"))
    }

    @Test("Opening virtual by moniker says it needs a radio; serial and hci-socket open their transports")
    func openingByMoniker() async {
        await #expect(throws: TransportOpenError.requiresVirtualRadio) {
            _ = try await TransportMoniker.virtual.openHostTransport()
        }
        await #expect(throws: TransportOpenError.serial(.noSuchDevice(path: "/nonexistent/ttyUSB9"))) {
            _ = try await TransportMoniker.serial(.init(device: "/nonexistent/ttyUSB9")).openHostTransport()
        }
        await #expect(throws: TransportOpenError.serial(.unsupportedSpeed(12345))) {
            _ = try await TransportMoniker.serial(.init(device: "/dev/null", speed: 12345)).openHostTransport()
        }
    }
}
