import Foundation
import RoquaAchievements
import RoquaRegions
import Synchronization

/// The achievement board as the store is now, evaluated once for the routes that ask for it at
/// the same time: the page asks `/api/profile` and `/api/achievements` together on every load and
/// each evaluated every achievement over every region (5 s each at a million regions, at once on
/// two cores). Evaluated again when the store changed (its change mark) or after a minute (streaks
/// and validity windows move with the clock); a failed evaluation is not kept.
final class SharedBoard: Sendable {
    private let current = Mutex<(mark: String, at: Date, task: Task<AchievementBoard, any Error>)?>(nil)
    private let evaluated = Atomic<Int>(0)

    /// Evaluations started so far (tests read it).
    var evaluations: Int { evaluated.load(ordering: .relaxed) }

    func board(_ state: ServerState) async throws -> AchievementBoard {
        let mark = try await offloaded { try state.store.changeMark() }
        let now = Date()
        let task = current.withLock { current -> Task<AchievementBoard, any Error> in
            if let current, current.mark == mark, now.timeIntervalSince(current.at) < 60 { return current.task }
            evaluated.add(1, ordering: .relaxed)
            let task = Task { try await offloaded { try state.tracker.board(store: state.store) } }
            current = (mark, now, task)
            return task
        }
        do {
            return try await task.value
        } catch {
            current.withLock { if $0?.task == task { $0 = nil } }
            throw error
        }
    }
}
