import BLEWire

// Encryption start, pause and refresh (Core 5.4 Vol 6 Part B §5.1.3, §5.1.4) and their HCI side
// (Vol 4 Part E §7.8.24–§7.8.26, §7.7.8, §7.7.39, §7.7.65.5).
//
// The simulation compares long term keys instead of deriving session keys: payloads stay
// plaintext, and a mismatch shows up where a real link would fail its MIC check.

extension VirtualController {
    /// HCI_LE_Enable_Encryption (§7.8.24): the central starts encryption, or refreshes the key
    /// of an encrypted link (pause, then start again).
    func leEnableEncryption(_ command: HCI.LEEnableEncryption, on c: Connection) -> HCIStatus {
        guard c.role == .central, !c.encryption.inProgress, c.terminationReason == nil else {
            return .commandDisallowed
        }
        c.transmit.dataPaused = true
        if c.encryption.isOn {
            c.encryption = .pausing(
                key: command.longTermKey, random: command.randomNumber, diversifier: command.encryptedDiversifier)
            c.transmit.enqueue(.pauseEncReq)
        } else {
            c.encryption = .requested(key: command.longTermKey, refresh: false)
            c.transmit.enqueue(.encReq(random: command.randomNumber, diversifier: command.encryptedDiversifier))
        }
        return .success
    }

    /// HCI_LE_Long_Term_Key_Request_Reply (§7.8.25): the peripheral's host supplies the key.
    func leLongTermKeyRequestReply(
        _ command: HCI.LELongTermKeyRequestReply, on c: Connection
    ) -> CommandResult<HCI.ConnectionHandleReturnParameters> {
        let handle = command.connectionHandle
        guard case .awaitingKey(let refresh) = c.encryption else {
            return .complete(.init(status: .commandDisallowed, connectionHandle: handle))
        }
        c.encryption = .starting(key: command.longTermKey, refresh: refresh)
        c.transmit.enqueue(.startEncReq)
        return .complete(.init(connectionHandle: handle))
    }

    /// HCI_LE_Long_Term_Key_Request_Negative_Reply (§7.8.26): no key; the central's host gets
    /// Encryption Change with 0x06 PIN or Key Missing.
    func leLongTermKeyRequestNegativeReply(
        _ command: HCI.LELongTermKeyRequestNegativeReply, on c: Connection
    ) -> CommandResult<HCI.ConnectionHandleReturnParameters> {
        let handle = command.connectionHandle
        guard case .awaitingKey = c.encryption else {
            return .complete(.init(status: .commandDisallowed, connectionHandle: handle))
        }
        refuseEncryption(c)
        return .complete(.init(connectionHandle: handle))
    }

    private func refuseEncryption(_ c: Connection) {
        c.encryption = .off
        c.transmit.dataPaused = false
        c.transmit.enqueue(.rejectExtInd(rejectedOpcode: 0x03, .pinOrKeyMissing))
    }

    func handleEncryptionControl(_ pdu: LLControlPDU, on c: Connection) {
        switch (c.role, pdu, c.encryption) {
        case (.peripheral, .pauseEncReq, .on):
            c.encryption = .paused
            c.transmit.dataPaused = true
            c.transmit.enqueue(.pauseEncRsp)
        case (.central, .pauseEncRsp, .pausing(let key, let random, let diversifier)):
            c.encryption = .requested(key: key, refresh: true)
            c.transmit.enqueue(.pauseEncRsp)
            c.transmit.enqueue(.encReq(random: random, diversifier: diversifier))
        case (.peripheral, .encReq(let random, let diversifier), let state):
            let refresh = state == .paused
            c.transmit.dataPaused = true
            c.transmit.enqueue(.encRsp)
            if masks.allowsLE(.longTermKeyRequest) {
                c.encryption = .awaitingKey(refresh: refresh)
                send(
                    le: .longTermKeyRequest(
                        .init(connectionHandle: c.handle, randomNumber: random, encryptedDiversifier: diversifier)))
            } else {
                // A host that does not want the request has no key to give (§7.7.65.5).
                refuseEncryption(c)
            }
        case (.central, .startEncReq, .requested(let key, let refresh)):
            c.encryption = .starting(key: key, refresh: refresh)
            c.transmit.enqueue(.startEncRsp)
        case (.peripheral, .startEncRsp, .starting(let key, let refresh)):
            guard case .starting(let centralKey, _)? = c.peer?.encryption, centralKey == key else {
                micFailure(on: c)
                return
            }
            c.encryption = .on(key: key)
            c.transmit.dataPaused = false
            c.transmit.enqueue(.startEncRsp)
            reportEncryption(on: c, refresh: refresh)
        case (.central, .startEncRsp, .starting(let key, let refresh)):
            c.encryption = .on(key: key)
            c.transmit.dataPaused = false
            reportEncryption(on: c, refresh: refresh)
        default:
            return
        }
    }

    /// The keys differ: the peripheral cannot authenticate the central's LL_START_ENC_RSP, and
    /// the central cannot authenticate what the peripheral sends with its own key. Both ends
    /// drop the link with 0x3D Connection Terminated due to MIC Failure (§5.1.3.1).
    private func micFailure(on c: Connection) {
        let peer = c.peer
        closeConnection(c, reason: .connectionTerminatedMICFailure)
        if let peer, let owner = peer.owner { owner.closeConnection(peer, reason: .connectionTerminatedMICFailure) }
    }

    /// The peripheral refused (LL_REJECT_EXT_IND / LL_REJECT_IND): the central's host gets
    /// Encryption Change with the reason, and the link stays unencrypted.
    func encryptionRejected(_ status: HCIStatus, on c: Connection) {
        c.encryption = .off
        c.transmit.dataPaused = false
        if c.role == .central { sendEncryptionChange(c, status: status, enabled: false) }
    }

    private func reportEncryption(on c: Connection, refresh: Bool) {
        if refresh {
            send(.encryptionKeyRefreshComplete(.init(connectionHandle: c.handle)))
        } else {
            sendEncryptionChange(c, status: .success, enabled: true)
        }
    }

    /// HCI_Encryption_Change [v2] when the host unmasked it (with the 16-octet key size), else
    /// [v1] (§7.7.8).
    private func sendEncryptionChange(_ c: Connection, status: HCIStatus, enabled: Bool) {
        let state: HCIEvent.EncryptionEnabled = enabled ? .on : .off
        if masks.page2.contains(.encryptionChangeV2) {
            send(
                .encryptionChangeV2(
                    .init(
                        status: status, connectionHandle: c.handle, encryptionEnabled: state,
                        encryptionKeySize: enabled ? 16 : 0)))
        } else {
            send(.encryptionChange(.init(status: status, connectionHandle: c.handle, encryptionEnabled: state)))
        }
    }
}
