extension Phone {
    /// The handset's conditions now.
    public var conditions: PhoneConditions { runtime.conditions }

    /// Changes the handset's conditions (the cable plugged in, the battery draining, Wi-Fi lost,
    /// a Settings switch); what waits on them is reconsidered at once.
    public func setConditions(_ new: PhoneConditions) {
        let old = runtime.conditions
        guard old != new else { return }
        runtime.conditions = new
        record(.system(.conditions(new)))
        scheduledTasksSawConditionsChange(from: old, to: new)
        keepAliveSawConditionsChange(from: old, to: new)
    }

    /// Changes some of the handset's conditions.
    public func updateConditions(_ change: (inout PhoneConditions) -> Void) {
        var new = runtime.conditions
        change(&new)
        setConditions(new)
    }
}
