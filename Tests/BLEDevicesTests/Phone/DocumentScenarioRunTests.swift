import BLEDevices
import BLEPhone
import Testing

/// Scenario runs with documents: share, open in, the app's prompt, the answer.
@Suite("Scenario runs: documents")
struct DocumentScenarioRunTests {
    func run(_ json: String) async throws -> PhoneScenarioResult {
        try await PhoneScenarioRunner.run(try PhoneScenario(parsing: Array(json.utf8)))
    }

    func scenario(profile: String, answer: String) -> String {
        #"""
        {"profile": "\#(profile)",
         "app": {"bundle_id": "com.example.viewer",
                 "document_types": [{"name": "JSON", "types": ["public.json"], "rank": "Owner"}],
                 "reactions": [{"on": "open_document", "do": [{"prompt": {"title": "Import?", "actions": ["Cancel", "Import"]}}]}]},
         "timeline": [{"at_s": 1, "action": "share", "file": "settings.json", "text": "{}"},
                      {"at_s": 1, "action": "share", "file": "photo.png", "size": 10},
                      {"at_s": 2, "action": "open_in"},
                      {"at_s": 3, "action": "answer_prompt", "answer": "\#(answer)"}],
         "duration_s": 5,
         "expect": [{"documents_opened": 1}, {"in_inbox": "settings.json"}, {"prompts_shown": 1},
                    {"prompt_answered": "Import"}, {"note": "answered Import"}, {"launches": 1}]}
        """#
    }

    @Test("ios6, ios12 and ios17: the file is opened, copied to the Inbox, the prompt shown and answered")
    func openInWithPrompt() async throws {
        for profile in ["ios6", "ios12", "ios17"] {
            let result = try await run(scenario(profile: profile, answer: "Import"))
            #expect(result.passed, "\(profile): \(result.expectations.filter { !$0.passed })")
            let refused = result.trace.filter {
                if case .document(.refused(let file, _)) = $0.event { file == "photo.png" } else { false }
            }
            #expect(refused.count == 1)
        }
    }

    @Test("The JSON trace has the document events with their fields (docs/phone-scenarios.md)")
    func jsonTrace() async throws {
        let result = try await run(scenario(profile: "ios12", answer: "Import"))
        let json = PhoneTraceJSON.document(result.trace)
        for fragment in [
            #""type":"documentShared","file":"settings.json","uti":"public.json","handlers":["com.example.viewer"]"#,
            #""type":"documentRefused","file":"photo.png""#,
            #""type":"documentChosen","file":"settings.json","sheet":1"#,
            #""type":"documentCopied","file":"settings.json","path":"Documents/Inbox/settings.json""#,
            #""signature":"application(_:open:options:)","open_in_place":false,"source":"com.apple.mobilemail""#,
            #""type":"documentHandled""#, #""handled":true"#, #""reason":"open_document""#,
            #""type":"promptShown","id":1,"title":"Import?""#, #""type":"promptAnswered","id":1,"action":"Import""#,
        ] {
            #expect(json.contains(fragment), "\(fragment)")
        }
    }

    @Test("An expectation that does not hold fails with what the trace showed")
    func failingExpectation() async throws {
        let result = try await run(scenario(profile: "ios17", answer: "Cancel"))
        let failed = result.expectations.filter { !$0.passed }
        #expect(failed.map(\.expectation) == [.document(.promptAnswered("Import")), .noted("answered Import")])
        #expect(failed.first?.observed == "Cancel")
    }
}
