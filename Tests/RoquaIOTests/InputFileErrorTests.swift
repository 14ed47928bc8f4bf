import RoquaIO
import Testing

/// An error about an input file shown under another name (an upload's own, not its temporary
/// copy's path): the file field changes, the words stay.
@Suite struct InputFileErrorTests {
    let spool = "/tmp/roqua-upload.4kx/upload"

    @Test func theFileItselfAndWhatLiesInIt() {
        #expect(InputFileName.renamed(spool, from: spool, to: "Records.json") == "Records.json")
        #expect(InputFileName.renamed(spool + ":2024/day.gpx", from: spool, to: "export.zip") == "export.zip:2024/day.gpx")
        #expect(InputFileName.renamed(spool + "/walks/day.gpx", from: spool, to: "walks") == "walks/walks/day.gpx")
        #expect(InputFileName.renamed("/home/a/other.gpx", from: spool, to: "walk.gpx") == "/home/a/other.gpx")
    }

    @Test func onlyTheFileFieldChanges() {
        // A message that happens to hold the path's text is not edited: only the field names the file.
        let error = InputError(file: spool, line: 12, message: "latitude \"\(spool)\" is not a number")
        let shown = error.renaming(spool, as: "walk.csv")
        #expect(shown == InputError(file: "walk.csv", line: 12, message: error.message))
        #expect(shown.description == "walk.csv: line 12: latitude \"\(spool)\" is not a number")
        let written = OutputError(path: spool + ".part", reason: "No space left on device").renaming(spool, as: "walk.csv")
        #expect(written.description == "walk.csv.part: cannot write: No space left on device")
        let unrelated = InputError(file: "-", line: nil, message: "empty")
        #expect(unrelated.renaming(spool, as: "walk.csv") == unrelated)
    }
}
