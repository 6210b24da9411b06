extension Phone {
    /// An app changed state: documents shared to apps ("Open in…") and the Files view react here.
    func documentsSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {}

    /// An app's process ended: what it held of documents shared to apps ("Open in…") and the Files view ends with it.
    func documentsSawTermination(of app: AppIdentifier, reason: TerminationReason) {}
}
