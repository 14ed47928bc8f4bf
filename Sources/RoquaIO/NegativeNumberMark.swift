/// A negative number on a command line (`-33.92`) looks like an option to the argument parser;
/// the CLIs mark its '-' as U+2212 MINUS SIGN before parsing and read it back as a minus.
public enum NegativeNumberMark {
    /// U+2212 MINUS SIGN.
    public static let minus = "\u{2212}"

    /// `argument` with its leading '-' marked when it is a negative number; otherwise unchanged.
    public static func protect(_ argument: String) -> String {
        guard argument.count > 1, argument.hasPrefix("-"), Double(argument) != nil else { return argument }
        return minus + argument.dropFirst()
    }

    /// `argument` with a marked minus turned back into '-'.
    public static func unmark(_ argument: String) -> String {
        argument.hasPrefix(minus) ? "-" + argument.dropFirst() : argument
    }
}
