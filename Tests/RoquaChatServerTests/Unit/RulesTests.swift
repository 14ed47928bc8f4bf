import Foundation
import Testing
import RoquaChatCore
@testable import RoquaChatServer

@Suite("Sign-in and refresh rules (pure)")
struct RulesTests {
    let settings = ChatSettings()
    let t0 = Date(timeIntervalSince1970: 1_746_000_000)

    @Test("back-off doubles per consecutive failure and stops at 15 minutes")
    func backoff() {
        #expect((1...12).map { OTPRules.backoff(failures: $0, settings: settings) }
                == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900])
        #expect(OTPRules.backoff(failures: 10_000, settings: settings) == 900)
        #expect(OTPRules.backoff(failures: 0, settings: settings) == 0)
    }

    @Test("failures carry over to the next code and are forgotten after an hour without one")
    func failuresAcrossCodes() {
        var settings = settings
        settings.codeLifetime = 86_400
        var state = OTPState()
        var now = t0
        for _ in 0..<3 {
            #expect(OTPRules.request(&state, codeMAC: Data([1]), now: now, settings: settings) == .send)
            for _ in 0..<5 {
                #expect(OTPRules.verify(&state, now: now, settings: settings) { _ in false } == .wrong)
                now = state.blockedUntil!
            }
            now += 60
        }
        #expect(state.failures == 15)
        #expect(state.blockedUntil == state.lastFailureAt!.addingTimeInterval(900))
        now = state.lastFailureAt!.addingTimeInterval(3600)
        #expect(OTPRules.request(&state, codeMAC: Data([2]), now: now, settings: settings) == .send)
        #expect(OTPRules.verify(&state, now: now, settings: settings) { _ in false } == .wrong)
        #expect(state.failures == 1, "an hour without failures starts the count again")
    }

    @Test("a success clears the code and the failures")
    func success() {
        var state = OTPState()
        _ = OTPRules.request(&state, codeMAC: Data([1]), now: t0, settings: settings)
        #expect(OTPRules.verify(&state, now: t0, settings: settings) { _ in false } == .wrong)
        #expect(OTPRules.verify(&state, now: t0 + 1, settings: settings) { $0 == Data([1]) } == .success)
        #expect(state.codeMAC == nil && state.failures == 0 && state.blockedUntil == nil)
        #expect(OTPRules.verify(&state, now: t0 + 2, settings: settings) { _ in true } == .noCode)
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
        func decide(_ token: RefreshTokenRecord?, _ family: RefreshFamilyRecord?, _ successor: RefreshTokenRecord?, at time: Date) -> RefreshDecision {
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
        #expect(InviteRules.decide(invite: invite, group: group, user: user, membership: nil, now: t0)
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
