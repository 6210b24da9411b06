/// The phone's bookkeeping of keep-alive modes and their wake sources (location, URLSession, VoIP and silent pushes), one stored property of `PhoneRuntime`.
struct KeepAliveRuntime {
}
