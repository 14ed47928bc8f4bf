import Foundation
import RoquaChatCore
import Testing

@testable import RoquaChatServer

@Suite("Sign-in and refresh rules (pure)")
struct RulesTests {
    let settings = ChatSettings()
    let t0 = Date(timeIntervalSince1970: 1_746_000_000)

    @Test("back-off doubles per consecutive failure and stops at 15 minutes")
    func backoff() {
        #expect(
            (1...12).map { OTPRules.backoff(failures: $0, settings: settings) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900])
        #expect(OTPRules.backoff(failures: 10_000, settings: settings) == 900)
        #expect(OTPRules.backoff(failures: 0, settings: settings) == 0)
    }

    func ask(_ state: inout OTPState, _ request: String, by requester: String, at now: Date) -> OTPRules.RequestOutcome {
        OTPRules.request(&state, request: request, requester: requester, codeMAC: Data(request.utf8), now: now, settings: settings)
    }

    @Test("a stranger asking for codes uses up only their own sends; the number's hourly total still caps everyone")
    func sendsPerRequester() {
        var state = OTPState()
        var now = t0
        for index in 0..<5 {
            #expect(ask(&state, "s\(index)", by: "stranger", at: now) == .send)
            now += 60
        }
        #expect(ask(&state, "s5", by: "stranger", at: now) == .throttled(until: t0 + 3600))
        // The owner still gets codes, and no request replaces another's code (not even the
        // requester's own: a requester may be many clients behind one address).
        #expect(ask(&state, "owner", by: "owner", at: now) == .send)
        #expect(ask(&state, "s6", by: "stranger", at: now + 1) != .send)
        #expect(state.codes.map(\.request).sorted() == ["owner", "s0", "s1", "s2", "s3", "s4"])
        // Ten sends an hour on one number whoever asks: a fourth requester is refused.
        for index in 0..<4 { #expect(ask(&state, "x\(index)", by: "other-\(index)", at: now + 2) == .send) }
        #expect(ask(&state, "late", by: "yet-another", at: now + 3) == .throttled(until: t0 + 3600))
    }

    @Test("guesses count against the code guessed, never against another requester's code")
    func guessesPerCode() {
        var state = OTPState()
        _ = ask(&state, "owner", by: "owner", at: t0)
        _ = ask(&state, "stranger", by: "stranger", at: t0)
        var now = t0
        for _ in 0..<5 {
            #expect(OTPRules.verify(&state, request: "stranger", now: now, settings: settings) { _ in false } == .wrong)
            now += 20
        }
        #expect(OTPRules.verify(&state, request: "stranger", now: now, settings: settings) { _ in true } == .noCode, "killed")
        #expect(OTPRules.verify(&state, request: "nobody", now: now, settings: settings) { _ in true } == .noCode)
        let owner = state.codes.first { $0.request == "owner" }
        #expect(owner?.attemptsLeft == 5 && owner?.blockedUntil == nil)
        #expect(OTPRules.verify(&state, request: "owner", now: now, settings: settings) { $0 == Data("owner".utf8) } == .success)
        #expect(state.codes.isEmpty, "signing in ends every live code of the number")
    }

    @Test("a wrong guess blocks further guesses on that code for the back-off; a blocked guess does not count")
    func backoffPerCode() {
        var state = OTPState()
        _ = ask(&state, "r", by: "a", at: t0)
        #expect(OTPRules.verify(&state, request: "r", now: t0, settings: settings) { _ in false } == .wrong)
        #expect(OTPRules.verify(&state, request: "r", now: t0 + 0.5, settings: settings) { _ in true } == .blocked(until: t0 + 1))
        #expect(OTPRules.verify(&state, request: "r", now: t0 + 1, settings: settings) { _ in false } == .wrong)
        #expect(state.codes.first?.attemptsLeft == 3 && state.codes.first?.blockedUntil == t0 + 3)
        #expect(OTPRules.verify(&state, request: "r", now: t0 + 3, settings: settings) { $0 == Data("r".utf8) } == .success)
    }

    @Test("the stored state round-trips through its JSON form")
    func stateText() throws {
        var state = OTPState()
        _ = ask(&state, "r", by: "a", at: t0)
        #expect(try OTPState.decoded(try state.encoded()) == state)
    }

    @Test("refresh decisions: rotate, grace, superseded, reuse, expiry, revoked")
    func refresh() {
        let family = RefreshFamilyRecord(id: "f", userID: "u", deviceID: "d", createdAt: t0)
        let fresh = RefreshTokenRecord(tokenHash: "a", familyID: "f", issuedAt: t0, expiresAt: t0 + 100)
        var used = fresh
        used.usedAt = t0 + 10
        let successor = RefreshTokenRecord(tokenHash: "b", familyID: "f", issuedAt: t0 + 10, expiresAt: t0 + 200)
        var usedSuccessor = successor
        usedSuccessor.usedAt = t0 + 15
        var revoked = family
        revoked.revokedAt = t0
        func decide(
            _ token: RefreshTokenRecord?, _ family: RefreshFamilyRecord?, _ successor: RefreshTokenRecord?, at time: Date
        ) -> RefreshDecision {
            RefreshRules.decide(RefreshLookup(token: token, family: family, successor: successor), now: time, settings: settings)
        }
        #expect(decide(fresh, family, nil, at: t0 + 5) == .rotate(family))
        #expect(decide(fresh, family, nil, at: t0 + 100) == .expired)
        #expect(decide(used, family, successor, at: t0 + 40) == .repeatWithinGrace(family))
        #expect(decide(used, family, usedSuccessor, at: t0 + 40) == .superseded)
        #expect(decide(used, family, successor, at: t0 + 41) == .reused(familyID: "f"))
        #expect(decide(fresh, revoked, nil, at: t0 + 5) == .invalid)
        #expect(decide(nil, nil, nil, at: t0) == .invalid)
    }

    @Test("invites: used, expired, another phone, rejoin after removal")
    func invites() throws {
        let user = UserRecord(id: "u", phone: try PhoneNumber("+905551112233"), role: .user, createdAt: t0)
        let group = GroupRecord(id: "g", name: "G", guideID: "guide", startDate: nil, endDate: nil, createdAt: t0, lastSeq: 42)
        let invite = InviteRecord(codeHash: "h", groupID: "g", phone: user.phone, createdBy: "guide", createdAt: t0, expiresAt: t0 + 60)
        #expect(
            InviteRules.decide(invite: invite, group: group, user: user, membership: nil, now: t0)
                == .join(MembershipRecord(groupID: "g", userID: "u", role: .member, joinedAt: t0)))
        #expect(InviteRules.decide(invite: invite, group: group, user: user, membership: nil, now: t0 + 60) == .failed(.inviteExpired))
        var usedInvite = invite
        usedInvite.acceptedAt = t0
        #expect(InviteRules.decide(invite: usedInvite, group: group, user: user, membership: nil, now: t0) == .failed(.inviteUsed))
        var other = user
        other.phone = try PhoneNumber("+905559998877")
        #expect(InviteRules.decide(invite: invite, group: group, user: other, membership: nil, now: t0) == .failed(.inviteForAnotherPhone))
        let removed = MembershipRecord(groupID: "g", userID: "u", role: .member, joinedAt: t0 - 100, removedAt: t0 - 50, removedAtSeq: 17)
        guard case .join(let rejoined) = InviteRules.decide(invite: invite, group: group, user: user, membership: removed, now: t0) else {
            Issue.record("a removed member may rejoin")
            return
        }
        #expect(rejoined.isActive && rejoined.visibleAfterSeq == 42 && rejoined.joinedAt == t0)
    }
}
