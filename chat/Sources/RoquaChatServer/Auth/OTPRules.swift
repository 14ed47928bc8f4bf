import Foundation
import RoquaIO

/// Everything the server remembers about sign-in codes for one phone number: the live codes
/// and when codes were sent, and to whom, within the last hour.
///
/// A code belongs to the sign-in request that asked for it: the request's id goes back only to
/// the requester, and a guess names it. So a stranger guessing on a number guesses on the codes
/// *they* asked for, never on the owner's — the owner's code, its attempts and its back-off are
/// out of their reach ("lock the code, not the person"). Nor does a later request replace it,
/// from whatever address: clients behind one address (a hotel's network, a carrier's NAT) are one
/// requester, and a stranger among them would otherwise kill the owner's code with each request.
package struct OTPState: Sendable, Equatable, Codable {
    /// One live code.
    package struct Code: Sendable, Equatable, Codable {
        /// Keyed hash of the request id the requester was given.
        package var request: String
        /// Keyed hash of the requester's address (kept so that a server rolled back can still
        /// read the state).
        package var requester: String
        /// HMAC of the code.
        package var mac: Data
        package var expiresAt: Date
        package var attemptsLeft: Int
        /// Wrong guesses on this code so far, and no guess is checked before `blockedUntil`.
        package var failures: Int
        package var blockedUntil: Date?
    }

    /// One code sent.
    package struct Send: Sendable, Equatable, Codable {
        package var at: Date
        package var requester: String
    }

    package var codes: [Code]
    package var sends: [Send]

    package init(codes: [Code] = [], sends: [Send] = []) {
        self.codes = codes
        self.sends = sends
    }

    /// The state as stored (JSON; dates as milliseconds since 1970).
    package func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The state stored as `text`.
    /// - Throws: `DecodingError` for a row that is not a state.
    package static func decoded(_ text: String) throws -> OTPState {
        let decoder = CheckedJSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(OTPState.self, from: Data(text.utf8))
    }
}

/// The sign-in code rules, pure: stores run them inside a transaction on the phone's state.
package enum OTPRules {
    /// The result of asking for a code.
    package enum RequestOutcome: Sendable, Equatable {
        /// Send this code (its MAC is now a live code of this request).
        case send
        /// Not now: this requester got a code for the number too recently or too often this
        /// hour, or the number got as many codes this hour as it may.
        case throttled(until: Date)
    }

    /// The result of checking a code.
    package enum VerifyOutcome: Sendable, Equatable {
        case success
        case wrong
        case expired
        /// No live code for this request (never sent, used, killed, expired long ago).
        case noCode
        case blocked(until: Date)
    }

    /// A new code with MAC `codeMAC` for the request `request` from `requester`, unless the
    /// send limits forbid it. Live codes stay live: several at once cost no guesses, since every
    /// code is a send and the sends of an hour are capped (`sendsPerHour × guessesPerCode`).
    package static func request(
        _ state: inout OTPState, request: String, requester: String, codeMAC: Data,
        now: Date, settings: ChatSettings
    ) -> RequestOutcome {
        prune(&state, now: now)
        let mine = state.sends.filter { $0.requester == requester }.map(\.at)
        if let last = mine.max(), now.timeIntervalSince(last) < settings.resendInterval {
            return .throttled(until: last.addingTimeInterval(settings.resendInterval))
        }
        if mine.count >= settings.sendsPerRequesterPerHour, let oldest = mine.min() {
            return .throttled(until: oldest.addingTimeInterval(3600))
        }
        if state.sends.count >= settings.sendsPerHour, let oldest = state.sends.map(\.at).min() {
            return .throttled(until: oldest.addingTimeInterval(3600))
        }
        state.sends.append(OTPState.Send(at: now, requester: requester))
        state.codes.append(
            OTPState.Code(
                request: request, requester: requester, mac: codeMAC,
                expiresAt: now.addingTimeInterval(settings.codeLifetime),
                attemptsLeft: settings.guessesPerCode, failures: 0, blockedUntil: nil))
        return .send
    }

    /// Checks a guess on the code of request `request`; `matches` compares it with the code's
    /// MAC in constant time. Success ends every live code of the number (it is signed in).
    package static func verify(
        _ state: inout OTPState, request: String, now: Date, settings: ChatSettings,
        matches: (Data) -> Bool
    ) -> VerifyOutcome {
        guard let index = state.codes.firstIndex(where: { $0.request == request }) else {
            prune(&state, now: now)
            return .noCode
        }
        var code = state.codes[index]
        if let blockedUntil = code.blockedUntil, now < blockedUntil { return .blocked(until: blockedUntil) }
        guard now < code.expiresAt else {
            state.codes.remove(at: index)
            return .expired
        }
        if matches(code.mac) {
            state.codes.removeAll()
            return .success
        }
        code.attemptsLeft -= 1
        code.failures += 1
        code.blockedUntil = now.addingTimeInterval(backoff(failures: code.failures, settings: settings))
        if code.attemptsLeft <= 0 {
            state.codes.remove(at: index)
        } else {
            state.codes[index] = code
        }
        return .wrong
    }

    /// Forgets sends older than an hour and codes past their expiry.
    static func prune(_ state: inout OTPState, now: Date) {
        state.sends.removeAll { now.timeIntervalSince($0.at) >= 3600 }
        state.codes.removeAll { now.timeIntervalSince($0.expiresAt) >= 3600 }
    }

    /// `base × 2^(failures-1)`, at most `backoffMax`.
    package static func backoff(failures: Int, settings: ChatSettings) -> TimeInterval {
        guard failures > 0 else { return 0 }
        let exponent = min(failures - 1, 30)
        return min(settings.backoffBase * Double(1 << exponent), settings.backoffMax)
    }
}
