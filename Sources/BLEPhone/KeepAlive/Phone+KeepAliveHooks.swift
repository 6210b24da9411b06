extension Phone {
    /// An app changed state: keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes) react here.
    func keepAliveSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {}

    /// An app's process ended: what it held of keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes) ends with it.
    func keepAliveSawTermination(of app: AppIdentifier, reason: TerminationReason) {}

    /// The handset's conditions changed (`Phone.setConditions`).
    func keepAliveSawConditionsChange(from old: PhoneConditions, to new: PhoneConditions) {}
}
