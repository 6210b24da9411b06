import BLEWire

/// A return-parameter value paired, at compile time, with the command it answers.
struct ReturnSample: Sendable {
    let opcode: HCIOpcode
    let name: String
    let value: any HCIReturnParameters & Hashable

    init<C: HCICommandWithCompleteEvent>(_ command: C.Type, _ value: C.ReturnParameters)
    where C.ReturnParameters: Hashable {
        opcode = C.opcode
        name = C.name
        self.value = value
    }
}

/// One or more example values of every command and every return-parameter type in the table.
enum CommandSamples {
    static let peer = BluetoothAddress(0x5C_F3_70_A1_B2_C3)
    static let randomStatic = BluetoothAddress(0xC0_11_22_33_44_55)
    static let key = HCI.Key128(0x4C68_3841_39F5_74D8_36BC_F34E_9DFB_01BF)
    static let irk = HCI.Key128(0x0011_2233_4455_6677_8899_AABB_CCDD_EEFF)
    static let connection = HCI.ConnectionParameters(
        connectionIntervalMin: 0x0018, connectionIntervalMax: 0x0028, maxLatency: 4,
        supervisionTimeout: 0x002A,
        minCELength: 1, maxCELength: 2)
    static let coordinateX = ArraySlice((0..<32).map { UInt8($0) })
    static let coordinateY = ArraySlice((0..<32).map { UInt8(0xFF - $0) })
    static let extendedParameters = HCI.LESetExtendedAdvertisingParameters(
        advertisingHandle: 1, advertisingEventProperties: [.connectable, .scannable, .legacy],
        primaryAdvertisingIntervalMin: 0x0800, primaryAdvertisingIntervalMax: 0x01_0000,
        primaryAdvertisingChannelMap: [.channel37, .channel39], ownAddressType: .resolvableOrRandom,
        peerAddressType: .random, peerAddress: peer, advertisingFilterPolicy: .scanFilterAcceptList,
        advertisingTXPower: -4, primaryAdvertisingPHY: PHY.codedS8.hci, secondaryAdvertisingMaxSkip: 2,
        secondaryAdvertisingPHY: PHY.le2M.hci, advertisingSID: 0x0F, scanRequestNotificationEnable: true)

    static let commands: [any HCICommand & Hashable] = [
        // §7.1
        HCI.Disconnect(connectionHandle: 0x0040),
        HCI.Disconnect(connectionHandle: 0x0EFF, reason: .connectionTerminatedByLocalHost),
        HCI.ReadRemoteVersionInformation(connectionHandle: 0x0001),
        // §7.3
        HCI.SetEventMask(),
        HCI.SetEventMask(eventMask: [.disconnectionComplete, .encryptionChange, .leMeta]),
        HCI.Reset(),
        HCI.ReadTransmitPowerLevel(connectionHandle: 2, type: .maximum),
        HCI.ReadTransmitPowerLevel(connectionHandle: 2, type: .other(7)),
        HCI.SetControllerToHostFlowControl(flowControlEnable: .aclOnly),
        HCI.SetControllerToHostFlowControl(flowControlEnable: .other(9)),
        HCI.HostBufferSize(hostACLDataPacketLength: 1021, hostTotalNumACLDataPackets: 8),
        HCI.SetEventMaskPage2(eventMaskPage2: [.authenticatedPayloadTimeoutExpired, .encryptionChangeV2]),
        HCI.ReadLEHostSupport(),
        HCI.WriteLEHostSupport(leSupportedHost: true),
        HCI.WriteLEHostSupport(leSupportedHost: false, unused: 1),
        HCI.ReadAuthenticatedPayloadTimeout(connectionHandle: 3),
        HCI.WriteAuthenticatedPayloadTimeout(connectionHandle: 3, authenticatedPayloadTimeout: 0x0BB8),
        // §7.4, §7.5
        HCI.ReadLocalVersionInformation(),
        HCI.ReadLocalSupportedCommands(),
        HCI.ReadLocalSupportedFeatures(),
        HCI.ReadLocalExtendedFeatures(pageNumber: 1),
        HCI.ReadBufferSize(),
        HCI.ReadBDADDR(),
        HCI.ReadRSSI(handle: 0x0040),
        // §7.8 set-up
        HCI.LESetEventMask(),
        HCI.LESetEventMask(leEventMask: [.enhancedConnectionComplete, .extendedAdvertisingReport]),
        HCI.LEReadBufferSize(),
        HCI.LEReadBufferSizeV2(),
        HCI.LEReadLocalSupportedFeatures(),
        HCI.LESetRandomAddress(randomAddress: randomStatic),
        HCI.LEReadSupportedStates(),
        HCI.LEReadTransmitPower(),
        HCI.LESetHostFeature(bitNumber: 32, bitValue: true),
        // Legacy advertising and scanning
        HCI.LESetAdvertisingParameters(),
        HCI.LESetAdvertisingParameters(
            advertisingIntervalMin: 0x00A0, advertisingIntervalMax: 0x00F0,
            advertisingType: .connectableDirectedLowDutyCycle, ownAddressType: .random,
            peerAddressType: .random,
            peerAddress: peer, advertisingChannelMap: .channel38, advertisingFilterPolicy: .other(4)),
        HCI.LEReadAdvertisingPhysicalChannelTxPower(),
        HCI.LESetAdvertisingData(advertisingData: [0x02, 0x01, 0x06, 0x03, 0x03, 0x0F, 0x18]),
        HCI.LESetAdvertisingData(advertisingData: []),
        HCI.LESetAdvertisingData(advertisingData: [UInt8](repeating: 0xAB, count: 31)),
        HCI.LESetScanResponseData(scanResponseData: [0x05, 0x09, 0x74, 0x65, 0x73, 0x74]),
        HCI.LESetAdvertisingEnable(advertisingEnable: true),
        HCI.LESetScanParameters(),
        HCI.LESetScanParameters(
            leScanType: .active, leScanInterval: 0x0060, leScanWindow: 0x0030,
            ownAddressType: .resolvableOrPublic,
            scanningFilterPolicy: .extendedFiltered),
        HCI.LESetScanEnable(leScanEnable: true, filterDuplicates: true),
        // Connections
        HCI.LECreateConnection(
            leScanInterval: 0x0060, leScanWindow: 0x0060, peerAddressType: .random, peerAddress: peer,
            connectionParameters: connection),
        HCI.LECreateConnectionCancel(),
        HCI.LEReadFilterAcceptListSize(),
        HCI.LEClearFilterAcceptList(),
        HCI.LEAddDeviceToFilterAcceptList(addressType: .public, address: peer),
        HCI.LEAddDeviceToFilterAcceptList(addressType: .other(0xFF), address: .zero),
        HCI.LERemoveDeviceFromFilterAcceptList(addressType: .random, address: randomStatic),
        HCI.LEConnectionUpdate(connectionHandle: 0x0040, connectionParameters: connection),
        HCI.LESetHostChannelClassification(channelMap: HCI.LEChannelMap(rawValue: 0x1F_FFFF_FFFE)),
        HCI.LEReadChannelMap(connectionHandle: 0x0040),
        HCI.LEReadRemoteFeatures(connectionHandle: 0x0040),
        HCI.LERemoteConnectionParameterRequestReply(
            connectionHandle: 0x0040, connectionParameters: connection),
        HCI.LERemoteConnectionParameterRequestNegativeReply(connectionHandle: 0x0040),
        // Security
        HCI.LEEncrypt(key: key, plaintextData: irk),
        HCI.LERand(),
        HCI.LEEnableEncryption(
            connectionHandle: 0x0040, randomNumber: 0xABCD_EF12_3456_7890, encryptedDiversifier: 0x2474,
            longTermKey: key),
        HCI.LELongTermKeyRequestReply(connectionHandle: 0x0040, longTermKey: key),
        HCI.LELongTermKeyRequestNegativeReply(connectionHandle: 0x0040),
        HCI.LEReadLocalP256PublicKey(),
        HCI.LEGenerateDHKey(keyXCoordinate: coordinateX, keyYCoordinate: coordinateY),
        // Data length and PHY
        HCI.LESetDataLength(connectionHandle: 0x0040, txOctets: 251, txTime: 2120),
        HCI.LEReadSuggestedDefaultDataLength(),
        HCI.LEWriteSuggestedDefaultDataLength(suggestedMaxTXOctets: 251, suggestedMaxTXTime: 2120),
        HCI.LEReadMaximumDataLength(),
        HCI.LEReadPHY(connectionHandle: 0x0040),
        HCI.LESetDefaultPHY(allPHYs: [.noReceivePreference], txPHYs: [.le1M, .le2M], rxPHYs: []),
        HCI.LESetPHY(connectionHandle: 0x0040, txPHYs: .leCoded, rxPHYs: .leCoded, phyOptions: .preferS8),
        HCI.LESetPHY(
            connectionHandle: 1, allPHYs: [.noTransmitPreference, .noReceivePreference],
            txPHYs: HCI.LEPHYs(rawValue: 0xF8), rxPHYs: .le2M,
            phyOptions: .other(0x1234)),
        // Privacy
        HCI.LEAddDeviceToResolvingList(
            peerIdentityAddressType: .random, peerIdentityAddress: randomStatic, peerIRK: irk, localIRK: key),
        HCI.LERemoveDeviceFromResolvingList(peerIdentityAddressType: .public, peerIdentityAddress: peer),
        HCI.LEClearResolvingList(),
        HCI.LEReadResolvingListSize(),
        HCI.LEReadPeerResolvableAddress(peerIdentityAddressType: .public, peerIdentityAddress: peer),
        HCI.LEReadLocalResolvableAddress(peerIdentityAddressType: .random, peerIdentityAddress: randomStatic),
        HCI.LESetAddressResolutionEnable(addressResolutionEnable: true),
        HCI.LESetResolvablePrivateAddressTimeout(),
        HCI.LESetPrivacyMode(
            peerIdentityAddressType: .public, peerIdentityAddress: peer, privacyMode: .device),
        // Extended advertising
        HCI.LESetAdvertisingSetRandomAddress(advertisingHandle: 1, randomAddress: randomStatic),
        HCI.LESetExtendedAdvertisingParameters(advertisingEventProperties: [.connectable]),
        extendedParameters,
        HCI.LESetExtendedAdvertisingParametersV2(
            parameters: extendedParameters, primaryAdvertisingPHYOptions: .requireS8,
            secondaryAdvertisingPHYOptions: .other(9)),
        HCI.LESetExtendedAdvertisingData(advertisingHandle: 1, advertisingData: [0x02, 0x01, 0x06]),
        HCI.LESetExtendedAdvertisingData(
            advertisingHandle: 2, operation: .firstFragment, fragmentPreference: .shouldNotFragment,
            advertisingData: ArraySlice(repeating: 0x5A, count: 251)),
        HCI.LESetExtendedAdvertisingData(
            advertisingHandle: 1, operation: .unchangedData, advertisingData: []),
        HCI.LESetExtendedScanResponseData(
            advertisingHandle: 1, operation: .lastFragment, scanResponseData: [1, 2]),
        HCI.LESetExtendedAdvertisingEnable(enable: false, sets: []),
        HCI.LESetExtendedAdvertisingEnable(
            enable: true,
            sets: [
                .init(advertisingHandle: 1, duration: 500, maxExtendedAdvertisingEvents: 3),
                .init(advertisingHandle: 2),
            ]),
        HCI.LEReadMaximumAdvertisingDataLength(),
        HCI.LEReadNumberOfSupportedAdvertisingSets(),
        HCI.LERemoveAdvertisingSet(advertisingHandle: 1),
        HCI.LEClearAdvertisingSets(),
        // Extended scanning and initiating
        HCI.LESetExtendedScanParameters(
            le1M: .init(scanType: .active, scanInterval: 0x0060, scanWindow: 0x0030)),
        HCI.LESetExtendedScanParameters(
            ownAddressType: .random, scanningFilterPolicy: .basicFiltered, le1M: .init(),
            leCoded: .init(scanType: .passive, scanInterval: 0x0120, scanWindow: 0x0090)),
        HCI.LESetExtendedScanParameters(le1M: nil, leCoded: .init()),
        HCI.LESetExtendedScanParameters(le1M: nil),
        HCI.LESetExtendedScanEnable(
            enable: true, filterDuplicates: .enabledResetEachPeriod, duration: 100, period: 1),
        HCI.LEExtendedCreateConnection(
            peerAddressType: .public, peerAddress: peer, le1M: .init(connectionParameters: connection)),
        HCI.LEExtendedCreateConnection(
            initiatorFilterPolicy: .filterAcceptList, ownAddressType: .resolvableOrPublic,
            peerAddressType: .randomIdentity, peerAddress: randomStatic,
            le1M: .init(scanInterval: 0x10, scanWindow: 0x10, connectionParameters: connection),
            le2M: .init(connectionParameters: connection),
            leCoded: .init(scanInterval: 0x30, scanWindow: 0x20, connectionParameters: connection)),
    ]

    static let returnParameters: [ReturnSample] = [
        ReturnSample(HCI.Reset.self, .init(status: .success)),
        ReturnSample(HCI.SetEventMask.self, .init(status: .invalidHCICommandParameters)),
        ReturnSample(
            HCI.ReadTransmitPowerLevel.self, .init(connectionHandle: 0x0040, txPowerLevel: -20)),
        ReturnSample(HCI.ReadLEHostSupport.self, .init(leSupportedHost: 1)),
        ReturnSample(
            HCI.ReadAuthenticatedPayloadTimeout.self,
            .init(connectionHandle: 0x0040, authenticatedPayloadTimeout: 0x0BB8)),
        ReturnSample(HCI.WriteAuthenticatedPayloadTimeout.self, .init(connectionHandle: 0x0040)),
        ReturnSample(
            HCI.ReadLocalVersionInformation.self,
            .init(
                hciVersion: 0x0D, hciSubversion: 0x1234, lmpVersion: 0x0D, companyIdentifier: 0x0002,
                lmpSubversion: 0x5678)),
        ReturnSample(
            HCI.ReadLocalSupportedCommands.self,
            .init(supportedCommands: HCISupportedCommands(opcodes: [HCI.Reset.opcode, HCI.LERand.opcode]))),
        ReturnSample(
            HCI.ReadLocalSupportedFeatures.self,
            .init(lmpFeatures: [.leSupportedController, .bredrNotSupported])),
        ReturnSample(
            HCI.ReadLocalExtendedFeatures.self,
            .init(pageNumber: 1, maxPageNumber: 2, extendedLMPFeatures: 0x0F)),
        ReturnSample(
            HCI.ReadBufferSize.self,
            .init(
                aclDataPacketLength: 1021, synchronousDataPacketLength: 64, totalNumACLDataPackets: 6,
                totalNumSynchronousDataPackets: 1)),
        ReturnSample(HCI.ReadBDADDR.self, .init(bdAddr: peer)),
        ReturnSample(HCI.ReadRSSI.self, .init(handle: 0x0040, rssi: -67)),
        ReturnSample(
            HCI.LEReadBufferSize.self, .init(leACLDataPacketLength: 251, totalNumLEACLDataPackets: 15)),
        ReturnSample(
            HCI.LEReadBufferSizeV2.self,
            .init(
                leACLDataPacketLength: 251, totalNumLEACLDataPackets: 15, isoDataPacketLength: 300,
                totalNumISODataPackets: 4)),
        ReturnSample(
            HCI.LEReadLocalSupportedFeatures.self,
            .init(leFeatures: [.leEncryption, .le2MPHY, LEFeatures(rawValue: 1 << 60)])),
        ReturnSample(HCI.LEReadSupportedStates.self, .init(leStates: 0x0000_03FF_FFFF_FFFF)),
        ReturnSample(HCI.LEReadTransmitPower.self, .init(minTXPower: -20, maxTXPower: 10)),
        ReturnSample(HCI.LEReadAdvertisingPhysicalChannelTxPower.self, .init(txPowerLevel: 4)),
        ReturnSample(HCI.LEReadFilterAcceptListSize.self, .init(filterAcceptListSize: 8)),
        ReturnSample(
            HCI.LEReadChannelMap.self,
            .init(connectionHandle: 0x0040, channelMap: HCI.LEChannelMap.allDataChannels)),
        ReturnSample(HCI.LERemoteConnectionParameterRequestReply.self, .init(connectionHandle: 0x0040)),
        ReturnSample(HCI.LEEncrypt.self, .init(encryptedData: irk)),
        ReturnSample(HCI.LERand.self, .init(randomNumber: 0x0102_0304_0506_0708)),
        ReturnSample(HCI.LELongTermKeyRequestReply.self, .init(connectionHandle: 0x0040)),
        ReturnSample(
            HCI.LESetDataLength.self, .init(status: .unknownConnectionIdentifier, connectionHandle: 9)),
        ReturnSample(
            HCI.LEReadSuggestedDefaultDataLength.self,
            .init(suggestedMaxTXOctets: 27, suggestedMaxTXTime: 328)),
        ReturnSample(
            HCI.LEReadMaximumDataLength.self,
            .init(
                supportedMaxTXOctets: 251, supportedMaxTXTime: 17040, supportedMaxRXOctets: 251,
                supportedMaxRXTime: 17040)),
        ReturnSample(
            HCI.LEReadPHY.self, .init(connectionHandle: 0x0040, txPHY: PHY.le2M.hci, rxPHY: .init(rawValue: 7))),
        ReturnSample(HCI.LEReadResolvingListSize.self, .init(resolvingListSize: 12)),
        ReturnSample(HCI.LEReadPeerResolvableAddress.self, .init(resolvableAddress: peer)),
        ReturnSample(HCI.LESetExtendedAdvertisingParameters.self, .init(selectedTXPower: -7)),
        ReturnSample(HCI.LEReadMaximumAdvertisingDataLength.self, .init(maxAdvertisingDataLength: 1650)),
        ReturnSample(HCI.LEReadNumberOfSupportedAdvertisingSets.self, .init(numSupportedAdvertisingSets: 16)),
    ]
}
