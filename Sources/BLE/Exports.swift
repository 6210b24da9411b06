// `import BLE` is all an application needs, and no more: the managers and peripherals of this
// module, plus — declaration by declaration — the values it meets in their API (UUIDs,
// addresses, status and error codes, advertising data, the GATT definitions it publishes), the
// virtual radio it runs on and the transports that reach a real controller. The host, the
// controller and the wire formats stay behind: a program that wants them (a tool, a test)
// imports BLEHost, BLEController or BLEWire itself.

import BLEWire

// Wire values (BLEWire).
@_exported import struct BLEWire.BluetoothUUID
@_exported import struct BLEWire.BluetoothAddress
@_exported import struct BLEWire.LEAddress
@_exported import struct BLEWire.AdvertisingData
@_exported import enum BLEWire.AdvertisingDataError
@_exported import struct BLEWire.ATTErrorCode
@_exported import struct BLEWire.HCIStatus

// What a peripheral publishes and a central discovers, and how the stack fails (BLEHost).
@_exported import struct BLEHost.GATTService
@_exported import struct BLEHost.GATTCharacteristic
@_exported import struct BLEHost.GATTDescriptor
@_exported import enum BLEHost.GATTValue
@_exported import struct BLEHost.CharacteristicProperties
@_exported import struct BLEHost.AttributePermissions
@_exported import enum BLEHost.AttributeDatabaseError
@_exported import enum BLEHost.GATTError
@_exported import enum BLEHost.HostError
@_exported import struct BLEHost.HostConfiguration
@_exported import struct BLEHost.HostStatistics
@_exported import struct BLEHost.LinkPolicy
@_exported import struct BLEHost.ConnectionParameterLimits
@_exported import struct BLEHost.EventStream
@_exported import enum BLEHost.L2CAPChannelError
@_exported import enum BLEHost.L2CAPRefusal
@_exported import enum BLEHost.L2CAPChannelViolation
// GATT security (issue 14): what a refused access and a failed security raise carry.
@_exported import enum BLEHost.PairingError
@_exported import struct BLEHost.AttributeAccessRequest

// Pairing, bonds and link security (BLEHost; Core 5.4 Vol 3 Part H).
@_exported import enum BLEHost.LinkSecurity
@_exported import struct BLEHost.SecurityPolicy
@_exported import protocol BLEHost.PairingAgent
@_exported import struct BLEHost.JustWorksPairingAgent
@_exported import struct BLEHost.PairingRequestInfo
@_exported import enum BLEHost.PairingMethod
@_exported import enum BLEHost.OutOfBandData
@_exported import enum BLEHost.PairingError
@_exported import struct BLEHost.Bond
@_exported import struct BLEHost.LongTermKey
@_exported import protocol BLEHost.BondStore
@_exported import enum BLEHost.BondStoreError
@_exported import class BLEHost.InMemoryBondStore
@_exported import struct BLEWire.SMPKey128

// The virtual radio and its time (BLEController, BLESimulation).
@_exported import class BLEController.VirtualRadio
@_exported import class BLEController.VirtualController
@_exported import struct BLEController.AirPosition
@_exported import struct BLEController.PropagationModel
@_exported import class BLESimulation.Simulation
@_exported import struct BLESimulation.VirtualClock
@_exported import struct BLESimulation.VirtualInstant

// Real controllers and captures (BLETransport).
@_exported import protocol BLETransport.HCITransport
@_exported import enum BLETransport.HCITransportError
@_exported import enum BLETransport.TransportMoniker
@_exported import enum BLETransport.TransportOpenError
@_exported import class BLETransport.PacketCapture
@_exported import enum BLETransport.PacketCaptureError

/// The connection parameters a central asks for (Core 5.4 Vol 4 Part E §7.8.12): named here so
/// that an app need not import the wire formats' HCI namespace.
public typealias ConnectionParameters = HCI.ConnectionParameters

/// What this device can show and type for pairing (Core 5.4 Vol 3 Part H §2.3.2):
/// `SecurityPolicy.ioCapability`.
public typealias IOCapability = SMP.IOCapability

/// Why pairing failed, as Pairing Failed names it (Core 5.4 Vol 3 Part H §3.5.5).
public typealias PairingFailedReason = SMP.PairingFailedReason
