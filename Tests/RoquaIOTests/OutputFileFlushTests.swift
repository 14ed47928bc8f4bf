import Foundation
import RoquaIO
import RoquaTestSupport
import Testing

/// A regular output file larger than `OutputFile.flushBytes` has its pages sent to disk while
/// it is written (so the final fsync waits less). That must change nothing a user sees: the file
/// holds every byte in order, and until `commit` the old file at the path stays as it was.
@Suite struct OutputFileFlushTests {
    /// 3 × the flush step and a bit, in blocks of every kind `write` handles: small ones
    /// through the buffer, ≥ 64 KiB ones straight to the file, text.
    private func content() -> [[UInt8]] {
        var random = SeededGenerator(state: 8)
        var blocks: [[UInt8]] = []
        var total = 0
        while total < 3 * OutputFile.flushBytes + 12_345 {
            let size = [17, 4_093, 65_536, 700_001, 1 << 20][Int(random.next() % 5)]
            let block = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ total) }
            blocks.append(block)
            total += size
        }
        return blocks
    }

    @Test func aLargeFileIsWrittenWholeAndInOrder() throws {
        let directory = try TempDirectory()
        let path = directory.file("out.bin")
        let blocks = content()
        let file = try OutputFile(path: path)
        for (i, block) in blocks.enumerated() {
            if i % 7 == 3 { try file.write(String(decoding: block.map { $0 & 0x3F | 0x40 }, as: UTF8.self)) } else { try file.write(block) }
        }
        try file.commit()
        let expected = blocks.enumerated().flatMap { i, block in i % 7 == 3 ? block.map { $0 & 0x3F | 0x40 } : block }
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written.count == expected.count)
        #expect(written == Data(expected))
    }

    @Test func theOldFileStaysUntilCommitAndAfterDiscard() throws {
        let directory = try TempDirectory()
        let path = directory.file("out.bin")
        try Data("the previous output\n".utf8).write(to: URL(fileURLWithPath: path))
        let file = try OutputFile(path: path)
        for block in content() { try file.write(block) }  // well past the flush step
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "the previous output\n")
        file.discard()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "the previous output\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["out.bin"], "no temporary file is left")
    }

    /// What a killed build left beside its target (`.NAME.building-PID` of a process that is
    /// gone) is removed when the next build of that target starts, in a directory of many files;
    /// a running process's build, other targets' builds and look-alike names are left alone.
    @Test func aKilledBuildsLeftoverIsRemovedAndNothingElse() throws {
        let directory = try TempDirectory()
        let path = directory.file("out.csv")
        var deadPID: Int32 = 999_999
        while kill(deadPID, 0) == 0 || errno != ESRCH { deadPID -= 1 }
        let alive = getppid()
        let keep =
            [
                ".out.csv.building-\(alive)", ".other.csv.building-\(deadPID)", "out.csv.building-\(deadPID)",
                ".out.csv.building-", ".out.csv.building-x\(deadPID)",
            ] + (0..<3_000).map { "file-\($0).txt" }
        for name in keep + [".out.csv.building-\(deadPID)", ".out.csv.building-\(deadPID)-wal"] {
            #expect(FileManager.default.createFile(atPath: directory.file(name), contents: Data("x".utf8)))
        }
        let file = try OutputFile(path: path)
        try file.write("latitude,longitude\n")
        try file.commit()
        #expect(try Set(directory.contents()) == Set(keep + ["out.csv"]))
    }
}
