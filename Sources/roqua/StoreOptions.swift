import ArgumentParser
import RoquaBoundaries
import RoquaRegions

/// `--store PATH`, shared by the verbs that read or write the user's regions.
struct StoreOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The region store (default: $ROQUA_STORE or the data home).", valueName: "PATH"))
    var store: String?

    var path: String { store ?? RegionStore.defaultPath() }

    func open() throws -> RegionStore {
        try failing { try RegionStore(path: path) }
    }
}
