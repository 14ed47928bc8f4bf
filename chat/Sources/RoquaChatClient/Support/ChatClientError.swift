import Foundation
import RoquaChatCore
import RoquaIO

/// Everything the client library throws. The first three are the errors that callers act
/// on: `noInternet` (keep the messages pending and retry later), `authenticationError` (sign in
/// again), `serverError` (the server answered but refused or failed).
public enum ChatClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached (connection refused, timed out, no route).
    case noInternet(server: String, reason: String)
    /// The tokens were refused and a refresh did not help; the user must sign in again.
    case authenticationError(reason: String)
    /// The server answered with an error; `retryAfter` is its `Retry-After` in seconds, if any.
    case serverError(status: Int, code: ChatErrorCode?, message: String, retryAfter: TimeInterval?)
    /// The local store could not be opened or written.
    case store(path: String, reason: String)
    /// A key or token file is missing, unreadable, malformed or readable by others.
    case secretFile(path: String, reason: String)
    /// An operation needs a signed-in home.
    case notSignedIn(home: String)
    /// No key of this group and epoch is held here.
    case noGroupKey(group: String, epoch: Int)
    /// The group's policy blocks sending while a member's changed identity key is unconfirmed.
    case unconfirmedIdentity(group: String, userID: String)
    /// This device is not (yet) a member in its verified log of the group: the guide's device
    /// adds it on seeing its join request.
    case notYetAdded(group: String)
    /// The group was made before group logs (an old home's): it can only be re-created.
    case groupBeforeLog(group: String, name: String)
    /// A scanned (or typed) safety number is not the one with this member.
    case safetyNumberMismatch(userID: String)
    /// The server presented another identity key than the one pinned at this home's first
    /// sign-in: refused (a different server, or someone in between).
    case serverIdentityChanged(pinned: String, offered: String)
    /// The group's membership changed and no guide has sealed the new epoch yet: nothing is
    /// sent under the old one, which who left can still read.
    case epochPending(group: String, epoch: Int)
    /// A body did not decrypt or did not verify: altered, forged or under another key.
    case rejectedMessage(localID: String, reason: String)
    /// A value given by the caller is not acceptable.
    case invalidInput(field: String, value: String, reason: String)

    public var description: String {
        switch self {
        case .noInternet(let server, let reason):
            "cannot reach the server \(Echo.quoted(server)): \(reason)"
        case .authenticationError(let reason):
            "not signed in: \(reason); sign in again (`roqua-chat auth request --server URL --phone PHONE`)"
        case .serverError(let status, let code, let message, let retryAfter):
            "the server answered HTTP \(status)" + (code.map { " (\($0.rawValue))" } ?? "") + ": \(Echo.cut(message))"
                + (retryAfter.map { "; retry after \(Int($0)) s" } ?? "")
        case .store(let path, let reason):
            "local store \(Echo.quoted(path)): \(reason)"
        case .secretFile(let path, let reason):
            "key file \(Echo.quoted(path)): \(reason)"
        case .notSignedIn(let home):
            "\(Echo.quoted(home)) is not signed in; first run `roqua-chat auth request --server URL --phone PHONE`, then auth verify"
        case .noGroupKey(let group, let epoch):
            "no key for group \(Echo.quoted(group)) epoch \(epoch) on this device"
        case .unconfirmedIdentity(let group, let userID):
            "user \(Echo.quoted(userID))'s identity key changed and group \(Echo.quoted(group))'s policy asks you to confirm it first: "
                + "compare safety numbers in person with `roqua-chat verify \(group) \(userID)`, then run it again with --confirm"
        case .safetyNumberMismatch(let userID):
            "the scanned code is not your safety number with user \(Echo.quoted(userID)): another key may sit in between; do not confirm, and tell the guide"
        case .groupBeforeLog(let group, let name):
            "group \(Echo.quoted(name)) (\(group)) was made before group logs, so nothing can be sent to it or read from it end to end: "
                + "a guide re-creates it (`roqua-chat group create \(Echo.quoted(name))`) and invites its members again; its old messages stay readable here"
        case .notYetAdded(let group):
            "this device is not a member of group \(Echo.quoted(group))'s log yet: the guide's device adds it at its next sync (or peer exchange); run `roqua-chat sync` after that"
        case .serverIdentityChanged(let pinned, let offered):
            "the server's identity key changed since this home first signed in (pinned \(pinned.prefix(12))…, offered \(offered.prefix(12))…): "
                + "refused; if the server really changed its key, sign in with a new --home"
        case .epochPending(let group, let epoch):
            "group \(Echo.quoted(group)) changed members after epoch \(epoch); waiting for a guide's new epoch (sync, or peer with the guide) before sending"
        case .rejectedMessage(let localID, let reason):
            "message \(Echo.quoted(localID)) rejected: \(reason)"
        case .invalidInput(let field, let value, let reason):
            "\(field) \(Echo.quoted(value)): \(reason)"
        }
    }

    /// Whether trying again later may succeed (the message stays pending).
    public var isTransient: Bool {
        switch self {
        case .noInternet: true
        case .serverError(let status, _, _, _): status == 429 || status >= 500
        default: false
        }
    }
}
