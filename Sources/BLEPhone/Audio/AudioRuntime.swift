/// The phone's bookkeeping of the audio session (AVAudioSession), other apps' audio and the route, one stored property of `PhoneRuntime`.
struct AudioRuntime {
}
