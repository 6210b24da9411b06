import Testing

@testable import BLEPhone

/// The documents part of scenario files: declarations, actions, steps and expectations parse,
/// encode back to the same scenario, and mistakes are located.
@Suite("Documents: scenario files")
struct DocumentScenarioTests {
    static let scenario = #"""
        {"profile": "ios12",
         "app": {"bundle_id": "com.example.viewer", "opens_in_place": true, "file_sharing": true,
                 "document_types": [{"name": "JSON", "types": ["public.json"], "rank": "Owner"},
                                    {"name": "Any", "types": ["public.data"]}],
                 "reactions": [{"on": "open_document", "do": [{"prompt": {"title": "Import?", "message": "m", "actions": ["No", "Yes"]}}]}]},
         "timeline": [{"at_s": 1, "action": "share", "file": "a.json", "text": "{}"},
                      {"at_s": 1, "action": "share", "file": "b.bin", "size": 300, "type": "public.data"},
                      {"at_s": 1, "action": "share", "file": "c.bin", "hex": "00ff"},
                      {"at_s": 2, "action": "open_in"},
                      {"at_s": 3, "action": "answer_prompt", "answer": "Yes"}],
         "duration_s": 5,
         "expect": [{"documents_opened": 1}, {"in_inbox": "c.bin"}, {"prompts_shown": 1}, {"prompt_answered": "Yes"}]}
        """#

    @Test("Parses what docs/phone-scenarios.md describes, and round-trips through the encoder")
    func parsesAndRoundTrips() throws {
        let scenario = try PhoneScenario(parsing: Array(Self.scenario.utf8))
        #expect(
            scenario.app.documents
                == PhoneScenario.AppDocuments(
                    types: [
                        DocumentTypeDeclaration(name: "JSON", contentTypes: [.json], handlerRank: .owner),
                        DocumentTypeDeclaration(name: "Any", contentTypes: [.data]),
                    ], opensInPlace: true, fileSharing: true))
        #expect(scenario.app.declaration.documentTypes.count == 2)
        #expect(scenario.app.declaration.fileSharingEnabled)
        #expect(scenario.app.reactions.first?.trigger == .openDocument)
        #expect(
            scenario.app.reactions.first?.steps
                == [.prompt(AppAlert(title: "Import?", message: "m", actions: ["No", "Yes"]))])
        #expect(
            scenario.timeline.map(\.action) == [
                .document(.share(name: "a.json", content: .text("{}"), type: nil)),
                .document(.share(name: "b.bin", content: .size(300), type: .data)),
                .document(.share(name: "c.bin", content: .hex([0, 0xFF]), type: nil)),
                .document(.openIn), .document(.answerPrompt("Yes")),
            ])
        #expect(
            scenario.expectations == [
                .document(.opened(1)), .document(.inInbox("c.bin")), .document(.promptsShown(1)),
                .document(.promptAnswered("Yes")),
            ])
        #expect(PhoneScenario.DocumentContent.size(300).bytes.count == 300)
        #expect(PhoneScenario.DocumentContent.size(300).bytes[257] == 1)
        let again = try PhoneScenario(parsing: Array(scenario.json.utf8))
        #expect(again == scenario)
    }

    @Test("Mistakes are located: unknown rank, no content, two contents, a key of another kind of step (document, device, task, keep-alive or plain), no buttons")
    func locatedErrors() {
        func problem(_ json: String) -> String? {
            do {
                _ = try PhoneScenario(parsing: Array(json.utf8))
                return nil
            } catch {
                return "\(error.path): \(error.problem)"
            }
        }
        func scenario(app: String = "", timeline: String = "") -> String {
            #"{"profile": "ios17", "app": {"bundle_id": "com.example.app""# + app + "}, "
                + #""timeline": ["# + timeline + #"], "duration_s": 10}"#
        }
        #expect(
            problem(scenario(app: #", "document_types": [{"name": "X", "types": ["public.json"], "rank": "Boss"}]"#))?
                .hasPrefix("app.document_types[0].rank: unknown rank \"Boss\"") == true)
        #expect(
            problem(scenario(timeline: #"{"at_s": 1, "action": "share", "file": "a.json"}"#))
                == "timeline[0]: share needs exactly one of \"size\", \"text\", \"hex\"")
        #expect(
            problem(scenario(timeline: #"{"at_s": 1, "action": "share", "file": "a", "size": 1, "text": "x"}"#))
                == "timeline[0]: share needs exactly one of \"size\", \"text\", \"hex\"")
        #expect(
            problem(scenario(timeline: #"{"at_s": 1, "action": "open", "file": "a.json"}"#))
                == "timeline[0].file: \"file\" does not apply to \"open\"")
        // Every kind of step refuses the keys of the others, not just some of them.
        #expect(
            problem(
                scenario(timeline: #"{"at_s": 1, "action": "set_conditions", "conditions": {}, "passcode": true}"#))
                == "timeline[0].passcode: \"passcode\" does not apply to \"set_conditions\"")
        #expect(
            problem(scenario(timeline: #"{"at_s": 1, "action": "share", "file": "a", "size": 1, "period_s": 2}"#))
                == "timeline[0].period_s: \"period_s\" does not apply to \"share\"")
        #expect(
            problem(scenario(timeline: #"{"at_s": 1, "action": "answer_prompt"}"#))?.hasPrefix("timeline[0]") == true)
        #expect(
            problem(
                scenario(
                    app: #", "reactions": [{"on": "open_document", "do": [{"prompt": {"title": "T", "actions": []}}]}]"#
                )
            ) == "app.reactions[0].do[0].prompt.actions: an alert needs a button")
        #expect(
            problem(scenario(timeline: #"{"at_s": 1, "action": "share", "file": "a", "hex": "zz"}"#))
                == "timeline[0].hex: not hex octets")
    }
}
