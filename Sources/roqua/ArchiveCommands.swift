import ArgumentParser
import Foundation
import RoquaCommandOptions
import RoquaIO
import RoquaProgress
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

    /// With --format gpx: the kept fixes of those days, one track per source.
    @OptionGroup var days: DaySpanOptions

    func validate() throws {
        guard try days.span() != nil else { return }
        guard format == .gpx else { throw ValidationError("--from and --to export the kept fixes, as GPX: add --format gpx") }
    }

    func run() throws {
        let store = try storeOptions.open(.readOnly)
        if let (start, end) = try days.span() {
            return try OutputFile.write(Array(try store.historyGPX(from: start, to: end).utf8), to: output ?? "-")
        }
        try OutputFile.write(try store.export(format), to: output ?? "-")
    }
}

struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Restore a backup, or a JSON or GeoJSON export, into the region store, in one transaction.",
        discussion: "A backup (`roqua backup`) brings back everything the store held; an export brings back its regions (and "
            + "their imports, whose files can be imported again to keep their fixes). The store must be empty unless --replace "
            + "is given; a damaged, altered or bad file changes nothing."
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "A file written by `roqua backup`, or by `roqua export --format json|geojson`.")
    var file: String

    @Flag(help: "Replace what the store holds.")
    var replace = false

    func run() throws {
        if try StoreBackup.isBackup(file) {
            // Checked whole before the store is opened: a bad file leaves no trace, not even a new store.
            let backup = try StoreBackup.read(file, components: StoreOptions.components)
            let store = try storeOptions.open()
            try backup.restore(into: store, replace: replace)
            // A big store's explored figures, remembered now (taken from the backup when it had
            // them), so the first `stats` after a restore does not measure them.
            ExploredFigures.keepRemembered(in: store)
            print("Restored \(try store.history().fixes) fixes and \(try store.regionCount()) regions into \(storeOptions.path)")
            return
        }
        // Read and checked whole before the store is opened, as a backup is.
        let archive = try RegionStore.readArchive(file, components: StoreOptions.components)
        let store = try storeOptions.open()
        let count = try store.restore(archive, from: file, replace: replace)
        ExploredFigures.keepRemembered(in: store)
        print("Restored \(count) regions into \(storeOptions.path)")
    }
}

extension ArchiveFormat: ExpressibleByArgument {}
