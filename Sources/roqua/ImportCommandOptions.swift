import RoquaCommandOptions

/// The store option as `ImportCommand` names it: the one command that does not import
/// RoquaCommandOptions yet. Goes when it does (and takes `--boundaries` from `BoundaryOptions`).
typealias StoreOptions = RoquaCommandOptions.StoreOptions
