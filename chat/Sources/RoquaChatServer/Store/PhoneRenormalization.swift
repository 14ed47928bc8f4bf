import RoquaChatCore

/// Accounts stored before phone numbers dropped a national trunk prefix after the country code
/// (`+9005551234567`, now `+905551234567`): each is renamed to its normalized number, so its owner
/// signs in to it again — unless an account under the normalized number exists already (both
/// were made), which is left as it is and counted for the operator. Pure: each store applies it
/// in a schema migration.
package enum PhoneRenormalization {
    package struct Rename: Sendable, Equatable {
        package var userID: String
        package var from: String
        package var to: String
    }

    /// What to rename, and how many accounts collide with an existing one (or no longer parse).
    package static func plan(_ users: [(id: String, phone: String)]) -> (renames: [Rename], left: Int) {
        let taken = Set(users.map(\.phone))
        var renames: [Rename] = []
        var claimed = Set<String>()
        var left = 0
        for user in users {
            guard let normalized = try? PhoneNumber(user.phone).e164 else {
                left += 1
                continue
            }
            guard normalized != user.phone else { continue }
            if taken.contains(normalized) || claimed.contains(normalized) {
                left += 1
            } else {
                claimed.insert(normalized)
                renames.append(Rename(userID: user.id, from: user.phone, to: normalized))
            }
        }
        return (renames, left)
    }
}
