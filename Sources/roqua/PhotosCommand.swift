import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaProgress
import RoquaRegions

/// `roqua photos`: where the kept photos were taken.
struct PhotosCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "Where your photos were taken: counted per country, province and district, named offline.",
        discussion: "Counts the photos `roqua track import` kept (JPEG, HEIC, AVIF, PNG, Takeout sidecars): "
            + "\"İstanbul: 1,204 photos in 31 of 39 districts\". With --unit, that unit and its parts."
    )

    @OptionGroup var storeOptions: StoreOptions
    @OptionGroup var boundaryOptions: BoundaryOptions
    @Option(help: ArgumentHelp("Only this unit and its parts (a code or a name: TR-34, İstanbul).", valueName: "unit"))
    var unit: String?
    @Flag(help: "Print JSON: {photos, at_sea, units: [{code, name, level, photos, parts_with_photos, parts}]}.") var json = false

    func run() throws {
        let store = try storeOptions.open(.readOnly)
        let index = try ResolverIndex(path: boundaryOptions.path)
        let hierarchy = try BoundaryHierarchy(database: index.database)
        let chosen = try unit.map { try hierarchy.unit(named: $0) }
        let atlas = try PhotoAtlas(photos: try store.photos(), namer: try PlaceNamer(index: index), hierarchy: hierarchy, unit: chosen)
        if json { return try RoquaProgram.printJSON(atlas) }
        guard atlas.photos > 0 else { return print("No photos kept yet: import a folder of them (roqua track import DIR).") }
        print("\(atlas.photos) photo(s)" + (atlas.atSea > 0 ? ", \(atlas.atSea) of them at sea" : ""))
        atlas.lines.forEach { print($0) }
    }
}
