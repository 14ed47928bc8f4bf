import ArgumentParser
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions

struct InfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what the boundary database holds: levels, counts per country, sources and licences."
    )

    @OptionGroup var boundaryOptions: BoundaryOptions

    @Flag(help: "Print one JSON document.")
    var json = false

    @Option(
        help: ArgumentHelp(
            "List only these countries (ISO codes, comma-separated), with their provinces' district counts.",
            valueName: "CODES"))
    var country: String?

    func run() throws {
        var info = try boundaryOptions.open().info()
        if let country {
            let wanted = Set(country.uppercased().split(separator: ",").map(String.init))
            info.countries = info.countries.filter { wanted.contains($0.code) }
            info.provincesWithDistricts = info.provincesWithDistricts.filter { wanted.contains($0.country) }
        }
        if json { return try RoquaProgram.printJSON(info) }
        print("Boundary database \(info.path)")
        print("  schema \(info.schemaVersion), built by Roqua \(info.roquaVersion) at \(info.importedAt)")
        let levels = AdminLevel.allCases.map { "\($0): \(info.levels[$0.description] ?? 0)" }
        print("  \(levels.joined(separator: ", ")); \(info.pieces) indexed pieces")
        print("\nCountries with subdivisions (code, provinces, districts):")
        for c in info.countries where c.provinces > 0 || country != nil {
            let districts = c.districts > 0 ? ", \(c.districts) districts" : ""
            print("  \(c.code)  \(c.name): \(c.provinces) provinces\(districts)")
        }
        if country != nil, !info.provincesWithDistricts.isEmpty {
            print("\nProvinces with districts:")
            for p in info.provincesWithDistricts { print("  \(p.code)  \(p.name): \(p.districts) districts") }
        }
        print("\nSources:")
        for s in info.sources {
            print("  \(s.file) (\(s.level), \(s.features) features, \(s.encoding)\(s.crs.map { ", from \($0)" } ?? ""))")
            print("    \(s.description)\(s.addedAt.map { " on \($0)" } ?? "")")
            if let fields = s.fields { print("    fields: \(fields)") }
            print("    licence: \(s.licence)")
        }
        if let places = info.localities {
            print("  localities (\(places.count) places)")
            print("    \(places.description)")
            print("    licence: \(places.licence)")
        }
    }
}
