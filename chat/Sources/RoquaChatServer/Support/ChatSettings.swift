import Foundation
import RoquaChatCore
import RoquaHTTPGuard

/// The rules' numbers in one place; the defaults are the documented product rules.
package struct ChatSettings: Sendable {
    /// A sign-in code is valid this long.
    package var codeLifetime: TimeInterval = 5 * 60
    /// At least this long between two codes sent to one phone for one requester (address).
    package var resendInterval: TimeInterval = 60
    /// At most this many codes sent to one phone for one requester within an hour…
    package var sendsPerRequesterPerHour = 5
    /// …and this many for everyone together (at most `sendsPerHour × guessesPerCode` guesses an
    /// hour on a number, whoever guesses: a one-in-20,000 chance for six digits).
    package var sendsPerHour = 10
    /// Wrong guesses that kill a code.
    package var guessesPerCode = 5
    /// After the n-th wrong guess on a code, checking it waits `base × 2^(n-1)`…
    package var backoffBase: TimeInterval = 1
    /// …but never longer than this.
    package var backoffMax: TimeInterval = 15 * 60

    package var accessTokenLifetime: TimeInterval = 15 * 60
    package var refreshTokenLifetime: TimeInterval = 30 * 24 * 60 * 60
    /// A refresh token presented again this soon after its rotation gets the same successor
    /// (two requests of one app refreshing at once) instead of revoking the sign-in.
    package var refreshGrace: TimeInterval = 30

    package var inviteDefaultHours = 7 * 24
    package var inviteMaxHours = 30 * 24

    /// Bytes of a JSON body, except pushes.
    package var maxJSONBodyBytes = 64 * 1024
    /// Bytes of a push body: 100 messages of 64 KiB content and 8 KiB metadata, escaped.
    package var maxPushBodyBytes = 16 * 1024 * 1024
    /// A push body is held in memory up to this size, beyond it in an unlinked temporary file…
    package var pushMemoryBytes = 256 * 1024
    /// …and stored in batches of about this many bytes (each its own transaction).
    package var pushBatchBytes = 1024 * 1024
    /// Bytes of one blob.
    package var maxBlobBytes = 10 * 1024 * 1024
    /// Blob uploads received at once; more wait their turn, unread.
    package var concurrentBlobUploads = 2
    /// Attachment bytes one user may have uploaded (413 `quota_exceeded` beyond)…
    package var blobBytesPerUser: Int64 = 1 << 30
    /// …and one group's messages may name (that message is refused `quota_exceeded`).
    package var blobBytesPerGroup: Int64 = 4 << 30
    /// A message's signed `sent_at` may lie at most this far ahead of the server's clock…
    package var sentAtLead: TimeInterval = 5 * 60
    /// …and at most this long before its author's account was created.
    package var sentAtBeforeAccount: TimeInterval = 24 * 60 * 60
    package var defaultPullLimit = 100
    package var maxPullLimit = ChatLimits.maxPullLimit

    /// Code requests per client address (IPv6: per /64) per minute.
    package var codeRequestsPerAddress = 10
    /// Code requests per minute and per hour for the whole server: each may send an SMS, which
    /// is somebody's bill. Sized for one tour operator: a coach of 50 travellers signing in at
    /// departure passes in two minutes (five behind one hotel address), five coaches in one
    /// hour; a stranger with any number of addresses gets at most 300 SMS sent an hour (600 a
    /// minute, 36,000 an hour, before).
    package var codeRequestsPerServer = 30
    package var codeRequestsPerHour = 300
    /// Code checks per client address per minute, and for the whole server (guessing, and a
    /// write per check): at four checks for every code the server may send in a minute.
    package var codeChecksPerAddress = 30
    package var codeChecksPerServer = 120
    /// Whether loopback clients count per address too (off: a local script or test signs in
    /// many people; a proxy on this machine must be trusted or is refused; tests turn it on).
    package var limitLoopback = false
    /// Reverse proxies (their addresses as the connection shows them) whose `X-Forwarded-For`
    /// names the client: behind one, limits count the client's address, not the proxy's.
    package var trustedProxies: Set<String> = []

    /// Slow-client limits of every connection: a request's head within a minute, bodies at
    /// 1 KiB per 30 s at least, every request in within 15 minutes (tests shorten them).
    package var connectionLimits = ConnectionLimits()

    package init() {}
}
