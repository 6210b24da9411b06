import BLECompanion
import BLEPhone

/// The firmware files the headset's phone app opens ("Open in…"), as its Info.plist declares
/// them: four exported types and three document types.
///
/// | Type | Conforms to | Extensions | What |
/// |---|---|---|---|
/// | `com.swift-ble.firmware.raw` | `public.data` | `bin` | a raw image (its version in the file name) |
/// | `com.swift-ble.firmware.intel-hex` | `public.text` | `hex`, `ihex` | Intel HEX (text: editors may open it too) |
/// | `com.swift-ble.firmware.mcuboot-image` | `public.data` | `img` | an MCUboot signed image |
/// | `com.swift-ble.firmware.dfu-package` | `public.zip-archive` | — | a Nordic DFU package |
///
/// An MCUboot image named `.bin` and a DFU package named `.zip` cannot be told by their
/// extension: the first is typed raw, the second `public.zip-archive` (the system's type for
/// `.zip` stands), so the app also takes any zip, as an Alternate handler behind archivers. Which
/// format a file really holds is the recogniser's call, by content
/// (`HeadsetAppConfiguration.firmwareRecognizer`).
public enum HeadsetFirmwareDocuments {
    public static let raw: UniformTypeIdentifier = "com.swift-ble.firmware.raw"
    public static let intelHex: UniformTypeIdentifier = "com.swift-ble.firmware.intel-hex"
    public static let mcubootImage: UniformTypeIdentifier = "com.swift-ble.firmware.mcuboot-image"
    public static let dfuPackage: UniformTypeIdentifier = "com.swift-ble.firmware.dfu-package"

    /// `UTExportedTypeDeclarations`.
    public static let exportedTypes: [ExportedTypeDeclaration] = [
        ExportedTypeDeclaration(raw, conformsTo: [.data], filenameExtensions: ["bin"], description: "Firmware image"),
        ExportedTypeDeclaration(
            intelHex, conformsTo: [.text], filenameExtensions: ["hex", "ihex"], description: "Intel HEX firmware"),
        ExportedTypeDeclaration(
            mcubootImage, conformsTo: [.data], filenameExtensions: ["img"], description: "MCUboot signed image"),
        ExportedTypeDeclaration(dfuPackage, conformsTo: [.zip], description: "Nordic DFU package"),
    ]

    /// `CFBundleDocumentTypes`.
    public static let documentTypes: [DocumentTypeDeclaration] = [
        DocumentTypeDeclaration(
            name: "Firmware image", contentTypes: [raw, intelHex, mcubootImage], handlerRank: .owner),
        DocumentTypeDeclaration(name: "Firmware update package", contentTypes: [dfuPackage], handlerRank: .owner),
        DocumentTypeDeclaration(name: "Zip archive", contentTypes: [.zip], handlerRank: .alternate),
    ]
}

extension AppDeclaration {
    /// The declaration with the headset app's firmware documents: the types, the document types,
    /// and its Documents folder in the Files view (opening in place, file sharing).
    public func declaringFirmwareDocuments() -> AppDeclaration {
        var declaration = self
        declaration.exportedTypes = HeadsetFirmwareDocuments.exportedTypes
        declaration.documentTypes = HeadsetFirmwareDocuments.documentTypes
        declaration.supportsOpeningDocumentsInPlace = true
        declaration.fileSharingEnabled = true
        return declaration
    }
}
