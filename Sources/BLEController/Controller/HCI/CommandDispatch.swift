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
        CommandHandler(HCI.Disconnect.self) { $0.disconnect($1) },
        CommandHandler(HCI.ReadRemoteVersionInformation.self) { $0.readRemoteVersion($1) },
        // Controller & Baseband (§7.3)
        CommandHandler(HCI.SetEventMask.self) { $0.setEventMask($1) },
        CommandHandler(HCI.Reset.self) { controller, _ in controller.reset() },
        CommandHandler(HCI.ReadTransmitPowerLevel.self) { $0.readTransmitPowerLevel($1) },
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
        CommandHandler(HCI.ReadRSSI.self) { $0.readRSSI($1) },
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
        CommandHandler(HCI.LEConnectionUpdate.self) { $0.leConnectionUpdate($1) },
        CommandHandler(HCI.LESetHostChannelClassification.self) { $0.leSetHostChannelClassification($1) },
        CommandHandler(HCI.LEReadChannelMap.self) { $0.leReadChannelMap($1) },
        CommandHandler(HCI.LEReadRemoteFeatures.self) { $0.leReadRemoteFeatures($1) },
        CommandHandler(HCI.LEEncrypt.self) { controller, command in
            .complete(.init(encryptedData: AES128.encrypt(command.plaintextData, key: command.key)))
        },
        CommandHandler(HCI.LERand.self) { controller, _ in .complete(.init(randomNumber: controller.random.next())) },
        CommandHandler(HCI.LEEnableEncryption.self) { $0.leEnableEncryption($1) },
        CommandHandler(HCI.LELongTermKeyRequestReply.self) { $0.leLongTermKeyRequestReply($1) },
        CommandHandler(HCI.LELongTermKeyRequestNegativeReply.self) { $0.leLongTermKeyRequestNegativeReply($1) },
        CommandHandler(HCI.LEReadSupportedStates.self) { controller, _ in
            // Every combination of states of the table in §7.8.27 (bits 0–41).
            .complete(.init(leStates: 0x0000_03FF_FFFF_FFFF))
        },
        CommandHandler(HCI.LERemoteConnectionParameterRequestReply.self) {
            $0.leRemoteConnectionParameterRequestReply($1)
        },
        CommandHandler(HCI.LERemoteConnectionParameterRequestNegativeReply.self) {
            $0.leRemoteConnectionParameterRequestNegativeReply($1)
        },
        CommandHandler(HCI.LESetDataLength.self) { $0.leSetDataLength($1) },
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
        CommandHandler(HCI.LEReadPHY.self) { $0.leReadPHY($1) },
        CommandHandler(HCI.LESetDefaultPHY.self) { $0.leSetDefaultPHY($1) },
        CommandHandler(HCI.LESetPHY.self) { $0.leSetPHY($1) },
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
