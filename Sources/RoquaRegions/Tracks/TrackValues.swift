import RoquaBoundaries
import RoquaIO

enum TrackValues {
    /// A validated coordinate, or an error at `line` saying what is wrong with it.
    static func coordinate(latitude: Double, longitude: Double, file: String, line: Int?) throws(InputError) -> Coordinate {
        do {
            return try Coordinate(latitude: latitude, longitude: longitude).validated()
        } catch {
            throw InputError(file: file, line: line, message: error.description)
        }
    }
}
