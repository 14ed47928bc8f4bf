import ArgumentParser
import Foundation
import RoquaChatClient
import RoquaChatCore

/// `roqua-chat auth`: sign this home in by SMS.
struct AuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "auth",
        abstract: "Sign this device in (request an SMS code, then verify it), or out.",
        subcommands: [AuthRequestCommand.self, AuthVerifyCommand.self, AuthLogoutCommand.self])
}

/// `auth request --server URL --phone P`.
struct AuthRequestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "request", abstract: "Ask the server to send a sign-in code by SMS.")

    @OptionGroup var home: HomeOptions

    @Option(
        help: ArgumentHelp(
            "The sync server: https://HOST[:PORT], or http:// on this machine (e.g. http://127.0.0.1:8080).", valueName: "URL"))
    var server: String

    @Flag(help: "Allow plain http:// to another machine (anyone on the network can then read and change the traffic).")
    var insecure = false

    @Option(help: ArgumentHelp("Your phone number in international form, e.g. +905551234567.", valueName: "PHONE"))
    var phone: String

    @Option(
        name: .customLong("ca-cert"),
        help: ArgumentHelp(
            "Trust the certificates in this PEM file for the server (a private CA or a self-signed server) instead of the system's.",
            valueName: "FILE"))
    var caCert: String?

    func run() async throws {
        try await home.client().requestCode(server: server, phone: phone, insecure: insecure, caCertificate: caCert)
        // The code goes out only if the number's limits allow; the server answers alike either way.
        print("code requested for \(phone); run: \(ChatHint.command("auth", "verify", "--code", "CODE"))")
    }
}

/// `auth verify --code C`.
struct AuthVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Trade the SMS code for a session and register this device.")

    @OptionGroup var home: HomeOptions

    @Option(help: ArgumentHelp("The code from the SMS.", valueName: "CODE"))
    var code: String

    @Option(
        help: ArgumentHelp(
            "The name the members of your groups see (1–\(DisplayName.maxCharacters) characters; no : ( ) [ ] … or control characters).",
            valueName: "NAME"))
    var name: String?

    func run() async throws {
        // The name is checked before the code is spent.
        let checked = try name.map(ChatClient.displayName)
        let client = try home.client()
        var user = try await client.verify(code: code)
        if let checked { user = try await client.setDisplayName(checked.text) }
        print("signed in as \(user.phone.e164) (user \(user.id), \(user.role.rawValue))")
        if let shown = user.displayName {
            print("your groups see you as \(shown)")
        } else {
            print(
                "your groups see you as \(SenderLabels.shortID(user.id)); to give them a name, run: \(ChatHint.command("profile", "set-name", "NAME"))"
            )
        }
    }
}

/// `auth logout [--all-devices]`.
struct AuthLogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "logout",
        abstract: "Sign this device out on the server (its tokens stop working at once) and forget them here.")

    @OptionGroup var home: HomeOptions

    @Flag(help: "Sign out every device of this account (e.g. after losing a phone).")
    var allDevices = false

    func run() async throws {
        let ended = try await home.client().logout(allDevices: allDevices)
        print(allDevices ? "signed out on \(ended) device\(ended == 1 ? "" : "s")" : "signed out")
    }
}
