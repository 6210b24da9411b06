import Foundation

/// A document handed to the scripted app runs its `open_document` reactions, whichever method
/// the profile calls (`OpenURLSignature`); a scene launched with a URL finds it in its
/// connection options.
extension ScriptedApp {
    public func application(open url: URL, options: OpenURLOptions) async -> Bool {
        await react(to: .openDocument)
        return true
    }

    public func application(openURL url: URL, sourceApplication: String?, annotation: String?) async -> Bool {
        await react(to: .openDocument)
        return true
    }

    public func scene(openURLContexts contexts: [OpenURLContext]) async {
        await react(to: .openDocument)
    }

    public func sceneWillConnect() async {
        if context.launchOptions.url != nil { await react(to: .openDocument) }
    }
}
