/// A negative number on a command line (`-33.92`) looks like an option to the argument parser;
/// the CLIs mark its '-' as U+2212 MINUS SIGN before parsing and read it back as a minus.
public enum NegativeNumberMark {
    /// U+2212 MINUS SIGN.
    public static let minus = "\u{2212}"

    /// `argument` with its leading '-' marked when it is a negative number or a coordinate that
    /// starts with one (`-33.92,18.42`, `-33°55'`): a '-' then a digit or a point, which no option
    /// of these CLIs is; otherwise unchanged.
    public static func protect(_ argument: String) -> String {
        guard argument.count > 1, argument.hasPrefix("-"),
            let next = argument.unicodeScalars.dropFirst().first, ("0"..."9").contains(next) || next == "."
        else { return argument }
        return minus + argument.dropFirst()
    }

    /// `argument` with a marked minus turned back into '-'.
    public static func unmark(_ argument: String) -> String {
        argument.hasPrefix(minus) ? "-" + argument.dropFirst() : argument
    }
}
