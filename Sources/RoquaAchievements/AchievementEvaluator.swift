import Foundation
import RoquaProgress

/// Where "now" falls relative to an achievement's validity window.
public enum AchievementWindowState: String, Sendable, Codable {
    /// No window: always open.
    case always
    case upcoming, open, closed
}

/// Progress towards one achievement at one moment.
public struct AchievementStatus: Sendable, Equatable, Codable {
    /// The achievement's id.
    public var id: String
    /// Progress so far, in the calculator's unit (`.nan` for an unlock taken as given).
    public var current: Double
    /// The amount to reach, in the same unit (`.nan` for an unlock taken as given).
    public var target: Double
    /// Target reached, every prerequisite unlocked, and reached with regions inside the window.
    public var unlocked: Bool
    /// The definition's hidden flag (shown as "???" while locked).
    public var hidden: Bool
    /// Prerequisites not unlocked yet; while any remain the achievement cannot unlock.
    public var missingPrerequisites: [String]
    /// Where the evaluation's "now" falls relative to the validity window.
    public var window: AchievementWindowState
    /// When it was unlocked, once the unlock is stored (`AchievementTracker.board`); nil while
    /// locked, and left out of the JSON then.
    public var unlockedAt: Date? = nil

    /// 0…1.
    public var fraction: Double { target > 0 ? min(1, max(0, current / target)) : 0 }
}

/// Evaluates a catalog against one context.
///
/// - Prerequisites: an achievement whose prerequisites are not all unlocked stays locked even if
///   its own target is reached; its progress is still reported, so it unlocks as soon as they do.
/// - Validity windows: only regions started inside `[validFrom, validUntil]` count (see
///   `AchievementDefinition`); an upcoming window has no regions and cannot unlock.
public struct AchievementEvaluator: Sendable {
    /// The definitions and calculators evaluated.
    public let catalog: AchievementCatalog

    /// Creates an evaluator for `catalog`.
    public init(catalog: AchievementCatalog) { self.catalog = catalog }

    /// Statuses in catalog order. With `only`, just those achievements (and what their
    /// prerequisites need) are computed; ids in `unlocked` are taken as unlocked without computing.
    /// - Throws: when a calculator cannot compute a statistic it needs.
    public func evaluate(
        _ context: AchievementContext, only: Set<String>? = nil,
        unlocked: Set<String> = []
    ) throws -> [AchievementStatus] {
        let byID = Dictionary(catalog.achievements.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var done: [String: AchievementStatus] = [:]

        // The catalog has no cycles (validated), so this recursion ends.
        func status(_ id: String) throws -> AchievementStatus? {
            if let known = done[id] { return known }
            guard let definition = byID[id], let calculator = catalog.calculators[id] else { return nil }
            if unlocked.contains(id) {
                let kept = AchievementStatus(
                    id: id, current: .nan, target: .nan, unlocked: true, hidden: definition.hidden,
                    missingPrerequisites: [], window: .always)
                done[id] = kept
                return kept
            }
            var scope = context
            var windowState = AchievementWindowState.always
            if let window = definition.window(in: context.timeZone) {
                scope = context.restricted(from: window.from, until: window.until)
                if let from = window.from, context.now < from {
                    windowState = .upcoming
                } else if let until = window.until, context.now >= until {
                    windowState = .closed
                } else {
                    windowState = .open
                }
            }
            let progress = try calculator.progress(scope)
            let missing = try definition.prerequisites.filter { try status($0)?.unlocked != true }
            let result = AchievementStatus(
                id: id, current: progress.current, target: progress.target,
                unlocked: missing.isEmpty && windowState != .upcoming && progress.current >= progress.target,
                hidden: definition.hidden, missingPrerequisites: missing, window: windowState)
            done[id] = result
            return result
        }
        return try catalog.achievements.filter { only?.contains($0.id) ?? true }.compactMap { try status($0.id) }
    }
}
