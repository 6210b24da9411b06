/// The name of an enum case, read from the type's reflection metadata.
///
/// `Mirror` names a case that carries a payload (its child's label) but gives nothing for a case
/// without one; the standard library's own printing of such a case asks the runtime for the
/// name. That runtime entry point is the only way to name such a case without calling the
/// value's `description`, which for a `WireRenderable` is the rendering being built.
enum EnumMetadata {
    /// The case name of `value` if it is an enum whose metadata records case names, else nil.
    static func caseName<T>(of value: T) -> String? {
        swiftEnumCaseName(value).map { String(cString: $0) }
    }
}

/// The Swift runtime's case-name lookup (what `print` uses for a case without a payload);
/// nil for a non-enum or when the metadata carries no names.
@_silgen_name("swift_EnumCaseName")
private func swiftEnumCaseName<T>(_ value: T) -> UnsafePointer<CChar>?
