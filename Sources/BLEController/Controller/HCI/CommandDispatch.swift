import BLEWire

/// What a Command Complete command returns (Core 5.4 Vol 4 Part E §7.7.14): its return parameters,
/// or a failure status alone (controllers commonly send only the status when a command fails).
enum CommandResult<Parameters: HCIReturnParameters> {
    case complete(Parameters)
    case failed(HCIStatus)
}

/// One command the controller implements: decoding its parameters and running it, with the
/// completion event the command's kind calls for (Core 5.4 Vol 4 Part E §4.4).
struct CommandHandler: Sendable {
    let opcode: HCIOpcode
    let completion: HCICommandCompletion
    let execute: @Sendable (VirtualController, ArraySlice<UInt8>) -> Void

    init<C: HCICommandWithCompleteEvent>(
        _ type: C.Type, _ body: @escaping @Sendable (VirtualController, C) -> CommandResult<C.ReturnParameters>
    ) {
        opcode = C.opcode
        completion = .commandComplete
        execute = { controller, parameters in
            guard let command = try? C(decoding: parameters) else {
                controller.sendCommandComplete(C.opcode, status: .invalidHCICommandParameters)
                return
            }
            var result = CommandResult<C.ReturnParameters>.failed(.unspecifiedError)
            controller.completing(
                with: {
                    switch result {
                    case .complete(let parameters):
                        .commandComplete(
                            HCIEvent.CommandComplete(
                                C.self, numHCICommandPackets: controller.configuration.commandCredits,
                                returnParameters: parameters))
                    case .failed(let status): controller.commandComplete(C.opcode, status: status)
                    }
                },
                { result = body(controller, command) })
        }
    }

    /// A command on a connection: a Connection_Handle that names none is answered with 0x02
    /// Unknown Connection Identifier (Core 5.4 Vol 1 Part F §1.3) and `body` does not run.
    init<C: HCICommandWithCompleteEvent>(
        _ type: C.Type, connection handle: KeyPath<C, ConnectionHandle> & Sendable,
        _ body: @escaping @Sendable (VirtualController, C, Connection) -> CommandResult<C.ReturnParameters>
    ) where C.ReturnParameters: ConnectionReturnParameters {
        self.init(type) { controller, command in
            let handle = command[keyPath: handle]
            guard let connection = controller.connections[handle] else {
                return .complete(.unknownConnection(handle))
            }
            return body(controller, command, connection)
        }
    }

    init<C: HCICommandWithStatusEvent>(
        _ type: C.Type, _ body: @escaping @Sendable (VirtualController, C) -> HCIStatus
    ) {
        opcode = C.opcode
        completion = .commandStatus
        execute = { controller, parameters in
            guard let command = try? C(decoding: parameters) else {
                controller.sendCommandStatus(C.opcode, status: .invalidHCICommandParameters)
                return
            }
            var status = HCIStatus.unspecifiedError
            controller.completing(
                with: { controller.commandStatus(C.opcode, status: status) },
                { status = body(controller, command) })
        }
    }

    /// A command on a connection, answered with Command Status: 0x02 Unknown Connection
    /// Identifier (Core 5.4 Vol 1 Part F §1.3) when the Connection_Handle names none.
    init<C: HCICommandWithStatusEvent>(
        _ type: C.Type, connection handle: KeyPath<C, ConnectionHandle> & Sendable,
        _ body: @escaping @Sendable (VirtualController, C, Connection) -> HCIStatus
    ) {
        self.init(type) { controller, command in
            guard let connection = controller.connections[command[keyPath: handle]] else {
                return .unknownConnectionIdentifier
            }
            return body(controller, command, connection)
        }
    }
}

/// Return parameters that carry the Connection_Handle of the command: a failure still names it,
/// with the other fields at their placeholder values.
protocol ConnectionReturnParameters: HCIReturnParameters {
    /// 0x02 Unknown Connection Identifier for `handle`.
    static func unknownConnection(_ handle: ConnectionHandle) -> Self
}

extension HCI.ConnectionHandleReturnParameters: ConnectionReturnParameters {
    static func unknownConnection(_ handle: ConnectionHandle) -> Self {
        .init(status: .unknownConnectionIdentifier, connectionHandle: handle)
    }
}

extension HCI.ReadTransmitPowerLevel.ReturnParameters: ConnectionReturnParameters {
    static func unknownConnection(_ handle: ConnectionHandle) -> Self {
        .init(status: .unknownConnectionIdentifier, connectionHandle: handle, txPowerLevel: 0)
    }
}

extension HCI.ReadRSSI.ReturnParameters: ConnectionReturnParameters {
    /// 127: RSSI not available (§7.5.4).
    static func unknownConnection(_ handle: ConnectionHandle) -> Self {
        .init(status: .unknownConnectionIdentifier, handle: handle, rssi: 127)
    }
}

extension HCI.LEReadChannelMap.ReturnParameters: ConnectionReturnParameters {
    static func unknownConnection(_ handle: ConnectionHandle) -> Self {
        .init(status: .unknownConnectionIdentifier, connectionHandle: handle, channelMap: .init(rawValue: 0))
    }
}

extension HCI.LEReadPHY.ReturnParameters: ConnectionReturnParameters {
    static func unknownConnection(_ handle: ConnectionHandle) -> Self {
        .init(status: .unknownConnectionIdentifier, connectionHandle: handle, txPHY: PHY.le1M.hci, rxPHY: PHY.le1M.hci)
    }
}

extension VirtualController {
    /// Runs one command from the host.
    ///
    /// A command the controller does not implement gets 0x01 Unknown HCI Command in the event
    /// its kind calls for (Command Status for commands the table knows to complete that way,
    /// Command Complete otherwise, unknown opcodes included); one whose parameters do not decode
    /// gets 0x12 Invalid HCI Command Parameters (Core 5.4 Vol 4 Part E §4.5, Vol 1 Part F §1.3).
    func process(command packet: HCICommandPacket) {
        if let handler = Self.handlers[packet.opcode.rawValue] {
            if let family = Self.commandFamilies[packet.opcode.rawValue], !admit(family) {
                switch handler.completion {
                case .commandStatus: sendCommandStatus(packet.opcode, status: .commandDisallowed)
                case .commandComplete: sendCommandComplete(packet.opcode, status: .commandDisallowed)
                }
                return
            }
            handler.execute(self, packet.parameters)
            return
        }
        switch HCICommandTable.entry(for: packet.opcode)?.completion {
        case .commandStatus: sendCommandStatus(packet.opcode, status: .unknownHCICommand)
        case .commandComplete, nil: sendCommandComplete(packet.opcode, status: .unknownHCICommand)
        }
    }

    /// Whether a command of `family` may run; the first one decides the family until Reset
    /// (Core 5.4 Vol 4 Part E §3.1.1).
    private func admit(_ family: AdvertisingCommandFamily) -> Bool {
        if commandFamily == .undecided { commandFamily = family }
        return commandFamily == family
    }

    /// The advertising, scanning and initiating commands of each family (§3.1.1).
    static let commandFamilies: [UInt16: AdvertisingCommandFamily] = {
        let legacy: [HCIOpcode] = [
            HCI.LESetAdvertisingParameters.opcode, HCI.LEReadAdvertisingPhysicalChannelTxPower.opcode,
            HCI.LESetAdvertisingData.opcode, HCI.LESetScanResponseData.opcode, HCI.LESetAdvertisingEnable.opcode,
            HCI.LESetScanParameters.opcode, HCI.LESetScanEnable.opcode, HCI.LECreateConnection.opcode,
        ]
        let extended: [HCIOpcode] = [
            HCI.LESetAdvertisingSetRandomAddress.opcode, HCI.LESetExtendedAdvertisingParameters.opcode,
            HCI.LESetExtendedAdvertisingParametersV2.opcode, HCI.LESetExtendedAdvertisingData.opcode,
            HCI.LESetExtendedScanResponseData.opcode, HCI.LESetExtendedAdvertisingEnable.opcode,
            HCI.LEReadMaximumAdvertisingDataLength.opcode, HCI.LEReadNumberOfSupportedAdvertisingSets.opcode,
            HCI.LERemoveAdvertisingSet.opcode, HCI.LEClearAdvertisingSets.opcode,
            HCI.LESetExtendedScanParameters.opcode, HCI.LESetExtendedScanEnable.opcode,
            HCI.LEExtendedCreateConnection.opcode,
        ]
        var table: [UInt16: AdvertisingCommandFamily] = [:]
        for opcode in legacy { table[opcode.rawValue] = .legacy }
        for opcode in extended { table[opcode.rawValue] = .extended }
        return table
    }()

    func commandComplete(_ opcode: HCIOpcode, status: HCIStatus) -> HCIEvent {
        .commandComplete(
            HCIEvent.CommandComplete(
                numHCICommandPackets: configuration.commandCredits, opcode: opcode,
                returnParameters: [status.rawValue][...]))
    }

    func commandStatus(_ opcode: HCIOpcode, status: HCIStatus) -> HCIEvent {
        .commandStatus(
            HCIEvent.CommandStatus(
                status: status, numHCICommandPackets: configuration.commandCredits, opcode: opcode))
    }

    func sendCommandComplete(_ opcode: HCIOpcode, status: HCIStatus) {
        send(commandComplete(opcode, status: status))
    }

    func sendCommandStatus(_ opcode: HCIOpcode, status: HCIStatus) {
        send(commandStatus(opcode, status: status))
    }

    /// The opcodes this controller implements: exactly what Read Local Supported Commands
    /// reports (Core 5.4 Vol 4 Part E §6.27).
    public static var implementedOpcodes: [HCIOpcode] { handlerList.map(\.opcode) }

    /// The Supported_Commands bitmap built from `implementedOpcodes`.
    public static let supportedCommands = HCISupportedCommands(opcodes: handlerList.map(\.opcode))

    static let handlers: [UInt16: CommandHandler] = {
        var table: [UInt16: CommandHandler] = [:]
        for handler in handlerList { table[handler.opcode.rawValue] = handler }
        return table
    }()

    /// The one table of implemented commands, grouped as in Core 5.4 Vol 4 Part E §7.
    static let handlerList: [CommandHandler] = [
        // Link Control (§7.1)
        CommandHandler(HCI.Disconnect.self, connection: \.connectionHandle) { $0.disconnect($1, on: $2) },
        CommandHandler(HCI.ReadRemoteVersionInformation.self, connection: \.connectionHandle) { $0.readRemoteVersion($1, on: $2) },
        // Controller & Baseband (§7.3)
        CommandHandler(HCI.SetEventMask.self) { $0.setEventMask($1) },
        CommandHandler(HCI.Reset.self) { controller, _ in controller.reset() },
        CommandHandler(HCI.ReadTransmitPowerLevel.self, connection: \.connectionHandle) { $0.readTransmitPowerLevel($1, on: $2) },
        CommandHandler(HCI.HostBufferSize.self) { $0.hostBufferSize($1) },
        CommandHandler(HCI.SetEventMaskPage2.self) { $0.setEventMaskPage2($1) },
        CommandHandler(HCI.ReadLEHostSupport.self) { controller, _ in controller.readLEHostSupport() },
        CommandHandler(HCI.WriteLEHostSupport.self) { $0.writeLEHostSupport($1) },
        // Informational Parameters (§7.4)
        CommandHandler(HCI.ReadLocalVersionInformation.self) { controller, _ in controller.readLocalVersion() },
        CommandHandler(HCI.ReadLocalSupportedCommands.self) { controller, _ in
            .complete(.init(supportedCommands: VirtualController.supportedCommands))
        },
        CommandHandler(HCI.ReadLocalSupportedFeatures.self) { controller, _ in
            .complete(.init(lmpFeatures: [.bredrNotSupported, .leSupportedController]))
        },
        CommandHandler(HCI.ReadLocalExtendedFeatures.self) { $0.readLocalExtendedFeatures($1) },
        CommandHandler(HCI.ReadBufferSize.self) { controller, _ in controller.readBufferSize() },
        CommandHandler(HCI.ReadBDADDR.self) { controller, _ in .complete(.init(bdAddr: controller.publicAddress)) },
        // Status Parameters (§7.5)
        CommandHandler(HCI.ReadRSSI.self, connection: \.handle) { $0.readRSSI($1, on: $2) },
        // LE Controller (§7.8)
        CommandHandler(HCI.LESetEventMask.self) { $0.leSetEventMask($1) },
        CommandHandler(HCI.LEReadBufferSize.self) { controller, _ in controller.leReadBufferSize() },
        CommandHandler(HCI.LEReadLocalSupportedFeatures.self) { controller, _ in
            .complete(.init(leFeatures: controller.configuration.leFeatures))
        },
        CommandHandler(HCI.LESetRandomAddress.self) { $0.leSetRandomAddress($1) },
        CommandHandler(HCI.LESetAdvertisingParameters.self) { $0.leSetAdvertisingParameters($1) },
        CommandHandler(HCI.LEReadAdvertisingPhysicalChannelTxPower.self) { controller, _ in
            controller.leReadAdvertisingTxPower()
        },
        CommandHandler(HCI.LESetAdvertisingData.self) { $0.leSetAdvertisingData($1) },
        CommandHandler(HCI.LESetScanResponseData.self) { $0.leSetScanResponseData($1) },
        CommandHandler(HCI.LESetAdvertisingEnable.self) { $0.leSetAdvertisingEnable($1) },
        CommandHandler(HCI.LESetScanParameters.self) { $0.leSetScanParameters($1) },
        CommandHandler(HCI.LESetScanEnable.self) { $0.leSetScanEnable($1) },
        CommandHandler(HCI.LECreateConnection.self) { $0.leCreateConnection($1) },
        CommandHandler(HCI.LECreateConnectionCancel.self) { controller, _ in controller.leCreateConnectionCancel() },
        CommandHandler(HCI.LEReadFilterAcceptListSize.self) { controller, _ in
            .complete(.init(filterAcceptListSize: controller.configuration.filterAcceptListSize))
        },
        CommandHandler(HCI.LEClearFilterAcceptList.self) { controller, _ in controller.leClearFilterAcceptList() },
        CommandHandler(HCI.LEAddDeviceToFilterAcceptList.self) { $0.leAddDeviceToFilterAcceptList($1) },
        CommandHandler(HCI.LERemoveDeviceFromFilterAcceptList.self) { $0.leRemoveDeviceFromFilterAcceptList($1) },
        CommandHandler(HCI.LEConnectionUpdate.self, connection: \.connectionHandle) { $0.leConnectionUpdate($1, on: $2) },
        CommandHandler(HCI.LESetHostChannelClassification.self) { $0.leSetHostChannelClassification($1) },
        CommandHandler(HCI.LEReadChannelMap.self, connection: \.connectionHandle) { $0.leReadChannelMap($1, on: $2) },
        CommandHandler(HCI.LEReadRemoteFeatures.self, connection: \.connectionHandle) { $0.leReadRemoteFeatures($1, on: $2) },
        CommandHandler(HCI.LEEncrypt.self) { controller, command in
            .complete(.init(encryptedData: AES128.encrypt(command.plaintextData, key: command.key)))
        },
        CommandHandler(HCI.LERand.self) { controller, _ in .complete(.init(randomNumber: controller.random.next())) },
        CommandHandler(HCI.LEEnableEncryption.self, connection: \.connectionHandle) { $0.leEnableEncryption($1, on: $2) },
        CommandHandler(HCI.LELongTermKeyRequestReply.self, connection: \.connectionHandle) { $0.leLongTermKeyRequestReply($1, on: $2) },
        CommandHandler(HCI.LELongTermKeyRequestNegativeReply.self, connection: \.connectionHandle) { $0.leLongTermKeyRequestNegativeReply($1, on: $2) },
        CommandHandler(HCI.LEReadSupportedStates.self) { controller, _ in
            // Every combination of states of the table in §7.8.27 (bits 0–41).
            .complete(.init(leStates: 0x0000_03FF_FFFF_FFFF))
        },
        CommandHandler(HCI.LERemoteConnectionParameterRequestReply.self, connection: \.connectionHandle) {
            $0.leRemoteConnectionParameterRequestReply($1, on: $2)
        },
        CommandHandler(HCI.LERemoteConnectionParameterRequestNegativeReply.self, connection: \.connectionHandle) {
            $0.leRemoteConnectionParameterRequestNegativeReply($1, on: $2)
        },
        CommandHandler(HCI.LESetDataLength.self, connection: \.connectionHandle) { $0.leSetDataLength($1, on: $2) },
        CommandHandler(HCI.LEReadSuggestedDefaultDataLength.self) { controller, _ in
            .complete(
                .init(
                    suggestedMaxTXOctets: controller.suggestedMaxTxOctets,
                    suggestedMaxTXTime: controller.suggestedMaxTxTime))
        },
        CommandHandler(HCI.LEWriteSuggestedDefaultDataLength.self) { $0.leWriteSuggestedDefaultDataLength($1) },
        CommandHandler(HCI.LEAddDeviceToResolvingList.self) { $0.leAddDeviceToResolvingList($1) },
        CommandHandler(HCI.LERemoveDeviceFromResolvingList.self) { $0.leRemoveDeviceFromResolvingList($1) },
        CommandHandler(HCI.LEClearResolvingList.self) { controller, _ in controller.leClearResolvingList() },
        CommandHandler(HCI.LEReadResolvingListSize.self) { controller, _ in controller.leReadResolvingListSize() },
        CommandHandler(HCI.LEReadPeerResolvableAddress.self) { $0.leReadPeerResolvableAddress($1) },
        CommandHandler(HCI.LEReadLocalResolvableAddress.self) { $0.leReadLocalResolvableAddress($1) },
        CommandHandler(HCI.LESetAddressResolutionEnable.self) { $0.leSetAddressResolutionEnable($1) },
        CommandHandler(HCI.LESetResolvablePrivateAddressTimeout.self) {
            $0.leSetResolvablePrivateAddressTimeout($1)
        },
        CommandHandler(HCI.LEReadMaximumDataLength.self) { controller, _ in
            let c = controller.configuration
            return .complete(
                .init(
                    supportedMaxTXOctets: c.supportedMaxTxOctets, supportedMaxTXTime: c.supportedMaxTxTime,
                    supportedMaxRXOctets: c.supportedMaxRxOctets, supportedMaxRXTime: c.supportedMaxRxTime))
        },
        CommandHandler(HCI.LEReadPHY.self, connection: \.connectionHandle) { $0.leReadPHY($1, on: $2) },
        CommandHandler(HCI.LESetDefaultPHY.self) { $0.leSetDefaultPHY($1) },
        CommandHandler(HCI.LESetPHY.self, connection: \.connectionHandle) { $0.leSetPHY($1, on: $2) },
        CommandHandler(HCI.LESetAdvertisingSetRandomAddress.self) { $0.leSetAdvertisingSetRandomAddress($1) },
        CommandHandler(HCI.LESetExtendedAdvertisingParameters.self) { $0.leSetExtendedAdvertisingParameters($1) },
        CommandHandler(HCI.LESetExtendedAdvertisingParametersV2.self) {
            $0.leSetExtendedAdvertisingParameters($1.parameters)
        },
        CommandHandler(HCI.LESetExtendedAdvertisingData.self) { $0.leSetExtendedAdvertisingData($1) },
        CommandHandler(HCI.LESetExtendedScanResponseData.self) { $0.leSetExtendedScanResponseData($1) },
        CommandHandler(HCI.LESetExtendedAdvertisingEnable.self) { $0.leSetExtendedAdvertisingEnable($1) },
        CommandHandler(HCI.LEReadMaximumAdvertisingDataLength.self) { $0.leReadMaximumAdvertisingDataLength($1) },
        CommandHandler(HCI.LEReadNumberOfSupportedAdvertisingSets.self) {
            $0.leReadNumberOfSupportedAdvertisingSets($1)
        },
        CommandHandler(HCI.LERemoveAdvertisingSet.self) { $0.leRemoveAdvertisingSet($1) },
        CommandHandler(HCI.LEClearAdvertisingSets.self) { controller, _ in controller.leClearAdvertisingSets() },
        CommandHandler(HCI.LESetExtendedScanParameters.self) { $0.leSetExtendedScanParameters($1) },
        CommandHandler(HCI.LESetExtendedScanEnable.self) { $0.leSetExtendedScanEnable($1) },
        CommandHandler(HCI.LEExtendedCreateConnection.self) { $0.leExtendedCreateConnection($1) },
        CommandHandler(HCI.LEReadTransmitPower.self) { controller, _ in
            let range = controller.configuration.txPowerRange
            return .complete(.init(minTXPower: range.lowerBound, maxTXPower: range.upperBound))
        },
        CommandHandler(HCI.LESetPrivacyMode.self) { $0.leSetPrivacyMode($1) },
        CommandHandler(HCI.LEReadBufferSizeV2.self) { controller, _ in
            .complete(
                .init(
                    leACLDataPacketLength: controller.configuration.aclBufferSize,
                    totalNumLEACLDataPackets: controller.configuration.aclBufferCount, isoDataPacketLength: 0,
                    totalNumISODataPackets: 0))
        },
    ]
}
