import Foundation
import RoquaChatClient
import Testing

@Suite struct SenderLabelTests {
    static let me = "01a20000-0000-7000-8000-000000aaaaaa"
    static let guide = "01a20000-0000-7000-8000-000000bbbbbb"
    static let ayse = "01a20000-0000-7000-8000-000000cccccc"
    static let other = "01a20000-0000-7000-8000-000000dddddd"

    @Test func namesAloneWhenNothingCouldBeMistakenForThem() {
        let labels = SenderLabels(
            selfID: Self.me, names: [Self.me: "Ahmet", Self.guide: "Rehber Can", Self.ayse: "Ayşe"], guides: [Self.guide],
            others: [Self.other])
        #expect(labels.label(of: Self.me) == "me")
        #expect(labels.label(of: Self.guide) == "Rehber Can (guide)")
        #expect(labels.label(of: Self.ayse) == "Ayşe")
        #expect(labels.label(of: Self.other) == "…dddddd", "no name: the end of the user id")
        #expect(labels.name(of: Self.ayse) == "Ayşe" && labels.name(of: Self.other) == nil)
    }

    @Test func confusableNamesMeAndShortIDsCarryTheID() {
        let labels = SenderLabels(
            selfID: Self.me, names: [Self.me: "ayse", Self.guide: "Can", Self.ayse: "AYŞE", Self.other: "ME"],
            guides: [Self.guide])
        #expect(labels.label(of: Self.ayse) == "AYŞE (…cccccc)", "the same name as mine")
        #expect(labels.label(of: Self.other) == "ME (…dddddd)", "a name that reads as me")
        let mimic = SenderLabels(selfID: Self.me, names: [Self.ayse: "bbbbbb", Self.other: "Ay\u{1B}se"], guides: [Self.guide])
        #expect(mimic.label(of: Self.ayse) == "bbbbbb (…cccccc)", "a name that reads as another member's short id")
        #expect(mimic.label(of: Self.guide) == "…bbbbbb (guide)")
        #expect(mimic.label(of: Self.other) == "…dddddd", "a name a server sent against the rules is not shown")
    }
}
