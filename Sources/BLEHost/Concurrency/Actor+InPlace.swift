extension Actor {
    /// Runs `operation` isolated to this actor, synchronously, when the caller is already on
    /// the actor's executor (it traps otherwise, as `assumeIsolated` does).
    ///
    /// The input is passed rather than captured: `assumeIsolated` treats its closure as
    /// escaping to call it, which puts the captures of every call in a heap box — on the
    /// paths that run per packet that was a `malloc` each. A closure that captures nothing has
    /// no box.
    @inlinable
    package nonisolated func inPlace<Input, Output>(
        passing input: Input, _ operation: (isolated Self, Input) -> Output
    ) -> Output {
        preconditionIsolated()
        return withoutActuallyEscaping(operation) { operation in
            // An isolated parameter is an ordinary one in the calling convention.
            unsafeBitCast(operation, to: ((Self, Input) -> Output).self)(self, input)
        }
    }
}
