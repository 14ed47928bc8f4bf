import ArgumentParser
import Foundation
import RoquaCommandOptions
import RoquaIO
import RoquaRegions

struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the whole region store as JSON, GeoJSON or GPX.",
        discussion: "JSON and GeoJSON hold every column of every row and can be restored with `roqua restore`; GPX is for other tools."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: "json, geojson or gpx.")
    var format: ArchiveFormat = .json

    @Option(help: ArgumentHelp("Where to write (default: standard output).", valueName: "FILE"))
    var output: String?

    func run() throws {
        let data = try storeOptions.open(.readOnly).export(format)
        try OutputFile.write(data, to: output ?? "-")
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a JSON or GeoJSON export into the region store, in one transaction.",
        discussion: "The store must be empty unless --replace is given; a bad file changes nothing."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "A file written by `roqua export --format json|geojson`.")
    var file: String

    @Flag(help: "Replace what the store holds.")
    var replace = false

    func run() throws {
        let count = try storeOptions.open().restore(from: file, replace: replace)
        print("Restored \(count) regions into \(storeOptions.path)")
    }
}

extension ArchiveFormat: ExpressibleByArgument {}
