import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaIO

/// Files holding personal data are the owner's only, whatever the umask: each check below runs
/// under umask 022 (the usual one), under which the system's defaults would give 0644 / 0755.
@Suite(.serialized) struct PrivateFilesTests {
    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
    }

    /// Runs `body` under umask 022 (process-wide, so restored at once).
    static func underUsualUmask<T>(_ body: () throws -> T) rethrows -> T {
        let previous = umask(0o022)
        defer { umask(previous) }
        return try body()
    }

    @Test func outputsAndTheirNewDirectoriesArePrivate() throws {
        let directory = try TempDirectory("roqua-private")
        let output = directory.file("new/deeper/export.json")
        try Self.underUsualUmask {
            try PrivateFiles.makeDirectory((output as NSString).deletingLastPathComponent)
            try OutputFile.write(Array("{}".utf8), to: output)
        }
        #expect(Self.mode(output) == 0o600)
        #expect(Self.mode(directory.file("new")) == 0o700 && Self.mode(directory.file("new/deeper")) == 0o700)
        // A file already there is replaced by a private one (an export written again).
        let loose = directory.file("loose.csv")
        #expect(FileManager.default.createFile(atPath: loose, contents: Data("old".utf8), attributes: [.posixPermissions: 0o644]))
        try Self.underUsualUmask { try OutputFile.write(Array("new".utf8), to: loose) }
        #expect(try Self.mode(loose) == 0o600 && String(contentsOfFile: loose, encoding: .utf8) == "new")
    }

    @Test func aLooseFileIsNamedWithItsFix() throws {
        let directory = try TempDirectory("roqua-private")
        let path = directory.file("regions.sqlite")
        #expect(PrivateFiles.looseModeWarning(path) == nil)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(), attributes: [.posixPermissions: 0o644]))
        let warning = PrivateFiles.looseModeWarning(path) ?? ""
        #expect(warning.contains("mode 644") && warning.contains("chmod 600 \(path)"))
        chmod(path, 0o600)
        #expect(PrivateFiles.looseModeWarning(path) == nil)
    }

    /// Never replaces what is there, and never follows into something that is not a directory.
    @Test func existingThingsAreLeftAsTheyAre() throws {
        let directory = try TempDirectory("roqua-private")
        let file = directory.file("data")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("keep".utf8), attributes: [.posixPermissions: 0o644]))
        try PrivateFiles.createIfMissing(file)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "keep" && Self.mode(file) == 0o644)
        #expect(throws: OutputError.self) { try PrivateFiles.makeDirectory(file) }
        #expect(throws: OutputError.self) { try PrivateFiles.makeDirectory(file + "/below") }
    }
}
