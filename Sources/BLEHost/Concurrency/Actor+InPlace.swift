extension Actor {
    /// Runs `operation` isolated to this actor, synchronously, when the caller is already on
    /// the actor's executor. Debug builds check it and trap otherwise, as `assumeIsolated` does.
    ///
    /// Release builds do not check: every caller is on the actor's executor by construction
    /// (an actor of the same host stack, or the event queue's thread, which holds the
    /// isolation of every actor of its simulation), and the check is a call into the runtime —
    /// a slow one outside a job, where the event queue's actions run — on paths that run
    /// several times per packet (about 2.4 % of a day-long phone simulation). The test suite,
    /// built for debug, runs every such path with the check.
    ///
    /// The input is passed rather than captured: `assumeIsolated` treats its closure as
    /// escaping to call it, which puts the captures of every call in a heap box — on the
    /// paths that run per packet that was a `malloc` each. A closure that captures nothing has
    /// no box.
    @inlinable
    package nonisolated func inPlace<Input, Output>(
        passing input: Input, _ operation: (isolated Self, Input) -> Output
    ) -> Output {
        #if DEBUG
            preconditionIsolated()
        #endif
        return withoutActuallyEscaping(operation) { operation in
            // An isolated parameter is an ordinary one in the calling convention.
            unsafeBitCast(operation, to: ((Self, Input) -> Output).self)(self, input)
        }
    }
}
