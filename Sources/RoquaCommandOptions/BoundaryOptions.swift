import ArgumentParser
import RoquaBoundaries

/// `--boundaries PATH`, shared by every verb of `roqua` and `roqua-serve` that reads the boundary DB.
package struct BoundaryOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The boundary database.", valueName: "PATH"))
    package var boundaries: String?

    package init() {}

    /// The database's path: `--boundaries`, else `$ROQUA_BOUNDARIES`, else the data home's.
    package var path: String { boundaries ?? RoquaPaths.boundaries() }

    /// - Throws: `BoundaryDatabaseError` when the file is missing or not a boundary database.
    package func open() throws -> BoundaryDatabase { try BoundaryDatabase(path: path) }
}
