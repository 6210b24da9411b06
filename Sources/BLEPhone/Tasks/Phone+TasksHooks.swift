extension Phone {
    /// An app changed state: its scheduled tasks react here.
    func scheduledTasksSawStateChange(of app: AppIdentifier, from old: AppState, to new: AppState) {}

    /// An app's process ended: its running scheduled task ends with it.
    func scheduledTasksSawTermination(of app: AppIdentifier, reason: TerminationReason) {}

    /// The handset's conditions changed (`Phone.setConditions`).
    func scheduledTasksSawConditionsChange(from old: PhoneConditions, to new: PhoneConditions) {}
}
