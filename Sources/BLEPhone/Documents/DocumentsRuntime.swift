/// The phone's bookkeeping of documents shared to apps ("Open in…") and the Files view, one stored property of `PhoneRuntime`.
struct DocumentsRuntime {
}
