/// A weak reference to share with a closure that runs in its caller's isolation.
///
/// A capture list (`[weak self]`, or `[box = WeakReference(self)]`) makes an async closure
/// switch to the generic executor around each call it makes into an actor (Swift 6.3: one or
/// two extra task jobs per call). A box made before the closure, captured implicitly, costs
/// nothing of the kind and still lets the referent go.
package final class WeakReference<Referent: AnyObject & Sendable>: Sendable {
    package weak let value: Referent?

    package init(_ value: Referent) {
        self.value = value
    }
}
