import Foundation

/// Everything the server remembers about sign-in codes for one phone.
package struct OTPState: Sendable, Equatable {
    /// HMAC of the live code (nil when there is none: never sent, used, expired or killed).
    package var codeMAC: Data?
    package var codeExpiresAt: Date?
    package var attemptsLeft: Int
    /// When codes were sent within the last hour.
    package var sendTimes: [Date]
    /// Wrong guesses in a row (across codes) and when the last one was.
    package var failures: Int
    package var lastFailureAt: Date?
    /// No guess is checked before this.
    package var blockedUntil: Date?

    package init(codeMAC: Data? = nil, codeExpiresAt: Date? = nil, attemptsLeft: Int = 0, sendTimes: [Date] = [],
                 failures: Int = 0, lastFailureAt: Date? = nil, blockedUntil: Date? = nil) {
        self.codeMAC = codeMAC
        self.codeExpiresAt = codeExpiresAt
        self.attemptsLeft = attemptsLeft
        self.sendTimes = sendTimes
        self.failures = failures
        self.lastFailureAt = lastFailureAt
        self.blockedUntil = blockedUntil
    }
}

/// The sign-in code rules, pure: stores run them inside a transaction on the phone's state.
package enum OTPRules {
    /// The result of asking for a code.
    package enum RequestOutcome: Sendable, Equatable {
        /// Send this code (its MAC is now the live one).
        case send
        /// Not now: the phone got a code too recently, or too many this hour.
        case throttled(until: Date)
    }

    /// The result of checking a code.
    package enum VerifyOutcome: Sendable, Equatable {
        case success
        case wrong
        case expired
        case noCode
        case blocked(until: Date)
    }

    /// A new code with MAC `codeMAC` unless the resend limits forbid it.
    package static func request(_ state: inout OTPState, codeMAC: Data, now: Date, settings: ChatSettings) -> RequestOutcome {
        state.sendTimes.removeAll { now.timeIntervalSince($0) >= 3600 }
        if let last = state.sendTimes.max(), now.timeIntervalSince(last) < settings.resendInterval {
            return .throttled(until: last.addingTimeInterval(settings.resendInterval))
        }
        if state.sendTimes.count >= settings.sendsPerHour, let oldest = state.sendTimes.min() {
            return .throttled(until: oldest.addingTimeInterval(3600))
        }
        state.sendTimes.append(now)
        state.codeMAC = codeMAC
        state.codeExpiresAt = now.addingTimeInterval(settings.codeLifetime)
        state.attemptsLeft = settings.guessesPerCode
        return .send
    }

    /// Checks a guess; `matches` compares it with the live code's MAC in constant time.
    package static func verify(_ state: inout OTPState, now: Date, settings: ChatSettings,
                               matches: (Data) -> Bool) -> VerifyOutcome {
        if let blockedUntil = state.blockedUntil, now < blockedUntil { return .blocked(until: blockedUntil) }
        if let last = state.lastFailureAt, now.timeIntervalSince(last) >= settings.failureMemory { state.failures = 0 }
        guard let mac = state.codeMAC, let expiresAt = state.codeExpiresAt, state.attemptsLeft > 0 else { return .noCode }
        guard now < expiresAt else {
            state.codeMAC = nil
            state.codeExpiresAt = nil
            return .expired
        }
        if matches(mac) {
            state.codeMAC = nil
            state.codeExpiresAt = nil
            state.attemptsLeft = 0
            state.failures = 0
            state.lastFailureAt = nil
            state.blockedUntil = nil
            return .success
        }
        state.attemptsLeft -= 1
        if state.attemptsLeft == 0 {
            state.codeMAC = nil
            state.codeExpiresAt = nil
        }
        state.failures += 1
        state.lastFailureAt = now
        state.blockedUntil = now.addingTimeInterval(backoff(failures: state.failures, settings: settings))
        return .wrong
    }

    /// `base × 2^(failures-1)`, at most `backoffMax`.
    package static func backoff(failures: Int, settings: ChatSettings) -> TimeInterval {
        guard failures > 0 else { return 0 }
        let exponent = min(failures - 1, 30)
        return min(settings.backoffBase * Double(1 << exponent), settings.backoffMax)
    }
}
