import ArgumentParser
import Foundation
import Logging
import RoquaChatCore
import RoquaChatServer

/// `roqua-chat-server admin`: offline administration, straight on the store (bootstrapping the first admin).
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Administer the store directly (works while the server runs).",
        subcommands: [RoleCommand.self])

    @OptionGroup var store: StoreLocation
}

/// `roqua-chat-server admin --db PATH role PHONE guide|admin|user`.
struct RoleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "role",
        abstract: "Set a user's role, creating the user when the phone has never signed in.")

    @OptionGroup var store: StoreLocation

    @Argument(help: ArgumentHelp("The phone number in international form, e.g. +905551234567.", valueName: "PHONE"))
    var phone: String

    @Argument(help: ArgumentHelp("guide, admin or user.", valueName: "ROLE"))
    var role: String

    func validate() throws {
        _ = try failing { try PhoneNumber(phone) }
        guard Role(rawValue: role) != nil else { throw ValidationError("Unknown role '\(role)': use guide, admin or user.") }
    }

    func run() async throws {
        let number = try failing { try PhoneNumber(phone) }
        let newRole = Role(rawValue: role) ?? .user
        var logger = Logger(label: "roqua.chat.admin")
        logger.logLevel = .warning
        let user = try await store.withStore(logger: logger) { store in
            try await store.setRole(phone: number, role: newRole, now: Date())
        }
        print("\(user.phone.e164) is now \(user.role.rawValue) (user \(user.id))")
    }
}
