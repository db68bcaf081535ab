import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// A hasher for the fast tier: SHA-256 with a prefix instead of bcrypt (whose quarter of a
/// second per check the PostgreSQL tier's tests pay), counting the checks against the decoy.
final class TestHasher: PasswordHasher, @unchecked Sendable {
    private let lock = NSLock()
    private var decoyCount = 0
    var decoyChecks: Int { lock.withLock { decoyCount } }
    let decoy = "test$decoy"

    func hash(_ password: String, from address: String) async throws -> String { "test$" + sha256Hex(Array(password.utf8)) }

    func verify(_ password: String, hash: String, from address: String) async throws -> Bool {
        if hash == decoy { lock.withLock { decoyCount += 1 } }
        return hash == (try await self.hash(password, from: address))
    }
}

/// Signing in, changing a password and using one-time links over in-memory people: no PostgreSQL
/// (the fast tier).
@Suite("Accounts, in memory")
struct AccountServiceTests {
    let hasher = TestHasher()
    let people = InMemoryAccounts()
    var accounts: AccountService { AccountService(store: people, passwords: hasher) }
    let here = SignInClient(address: "10.0.0.1", userAgent: "test")
    let elsewhere = SignInClient(address: "10.0.0.2", userAgent: "test")
    let app = InMemoryCallers().addApp(slug: "team")

    func person(_ email: String, password: String?) async throws -> User {
        people.addPerson(email: email, passwordHash: try await password.asyncMap { try await hasher.hash($0, from: "") })
    }

    func refusal<T>(_ work: () async throws -> T) async -> AccountError? {
        do {
            _ = try await work()
            return nil
        } catch let error as AccountError {
            return error
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func aPasswordSignsInAndAWrongOneTellsNothing() async throws {
        let ann = try await person("ann@example.com", password: "correct horse battery")
        let (secret, session) = try await accounts.signIn(email: "ann@example.com", password: "correct horse battery", client: here)
        #expect(session.user.id == ann.id && people.session(secret: secret)?.id == session.id)
        #expect(await refusal { try await accounts.signIn(email: "ann@example.com", password: "wrong horse battery", client: here) } == .signInFailed)
        // An unknown email is checked against the decoy, and refused the same way.
        #expect(await refusal { try await accounts.signIn(email: "nobody@example.com", password: "whatever it is", client: here) } == .signInFailed)
        #expect(hasher.decoyChecks == 1)
        #expect(people.audit.filter { $0.hasPrefix("session sign-in-failed") }.count == 2 && people.audit.contains("session sign-in \(ann.id)"))
    }

    @Test func failuresAreHeldBackExceptFromAnAddressTheOwnerUses() async throws {
        _ = try await person("bob@example.com", password: "bobs own password")
        _ = try await accounts.signIn(email: "bob@example.com", password: "bobs own password", client: here)
        for _ in 0..<SignInThrottle.failuresPerAccount {
            #expect(await refusal { try await accounts.signIn(email: "bob@example.com", password: "a wrong guess", client: elsewhere) } == .signInFailed)
        }
        // The next guess must wait (4 s, the first delay), the right password included.
        let held = await refusal { try await accounts.signIn(email: "bob@example.com", password: "bobs own password", client: elsewhere) }
        guard case .tooManySignIns(let wait)? = held else {
            Issue.record("not held back: \(String(describing: held))")
            return
        }
        #expect((1...4).contains(wait))
        // Bob, where he signs in from, is not.
        _ = try await accounts.signIn(email: "bob@example.com", password: "bobs own password", client: here)
    }

    @Test func aNewPasswordNeedsTheCurrentOneAndEndsEverySession() async throws {
        let cat = try await person("cat@example.com", password: "the first password")
        let (old, _) = try await accounts.signIn(email: "cat@example.com", password: "the first password", client: here)
        #expect(await refusal { try await accounts.changePassword(of: cat, current: "not the password", new: "the second password", client: here) }
            == .wrongPassword(field: "/current_password", detail: "the current password is wrong"))
        do {
            _ = try await accounts.changePassword(of: cat, current: "the first password", new: "short", client: here)
            Issue.record("a short password was taken")
        } catch StoreError.invalid(let errors) {
            #expect(errors.map(\.pointer) == ["/new_password"])
        }
        #expect(people.session(secret: old) != nil, "a refused change ends nothing")
        let (new, _) = try await accounts.changePassword(of: cat, current: "the first password", new: "the second password", client: here)
        #expect(people.session(secret: old) == nil && people.session(secret: new) != nil)
        _ = try await accounts.signIn(email: "cat@example.com", password: "the second password", client: here)
    }

    @Test("a session ends after 14 days unused, as in PostgreSQL; its use is recorded at most once a minute")
    func aSessionUnusedForTooLongIsGone() async throws {
        let dan = try await person("dan@example.com", password: "dans own password")
        let (secret, _) = try await accounts.signIn(email: "dan@example.com", password: "dans own password", client: here)
        #expect(people.session(secret: secret)?.renewed == false, "just made: its use was recorded")
        people.age(sessionsBy: 120)
        #expect(people.session(secret: secret)?.renewed == true, "used after two minutes: recorded, the cookie sent again")
        #expect(people.session(secret: secret)?.renewed == false)
        people.age(sessionsBy: Store.sessionIdleLifetime - 60)
        #expect(people.session(secret: secret) != nil, "used within the lifetime")
        people.age(sessionsBy: Store.sessionIdleLifetime + 1)
        #expect(people.session(secret: secret) == nil, "unused for longer than the lifetime")
        #expect(try await people.sessions(userId: dan.id).isEmpty, "not listed either")
    }

    @Test func aPasswordLinkIsUsedOnce() async throws {
        _ = try await person("dan@example.com", password: nil)
        let secret = people.addLink(kind: .setPassword, email: "dan@example.com")
        let (link, hasPassword) = try await accounts.liveLink(secret: secret)
        #expect(link.kind == .setPassword && !hasPassword)
        let (_, session) = try await accounts.useLink(secret: secret, client: here) { ("dans new password", "Dan") }
        #expect(session.user.name == "Dan" && session.user.hasPassword)
        // Used: gone, and what the request sends is not even read.
        #expect(await refusal { try await accounts.useLink(secret: secret, client: here) { throw CancellationError() } } == .linkUsedOrExpired)
        #expect(await refusal { try await accounts.liveLink(secret: "rvl_unknown") } == .linkUnknown)
        let expired = people.addLink(kind: .setPassword, email: "dan@example.com", expiresIn: -1)
        #expect(await refusal { try await accounts.liveLink(secret: expired) } == .linkUsedOrExpired)
        _ = try await accounts.signIn(email: "dan@example.com", password: "dans new password", client: elsewhere)
    }

    @Test func anInvitationMakesTheAccountOrTakesItsPassword() async throws {
        // A new email: the account is made with this password, a member as the invitation says.
        let newcomer = people.addLink(kind: .invitation, email: "eve@example.com", app: app, role: .editor)
        let (_, eve) = try await accounts.useLink(secret: newcomer, client: here) { ("eves password here", nil) }
        #expect(people.role(appId: app.id, userId: eve.user.id) == .editor)

        // An account with a password proves it with that password.
        let fay = try await person("fay@example.com", password: "fays password here")
        let invited = people.addLink(kind: .invitation, email: "fay@example.com", app: app, role: .viewer)
        #expect(await refusal { try await accounts.useLink(secret: invited, client: here) { ("not fays password", nil) } }
            == .wrongPassword(field: "/password", detail: "this account has a password already: enter it to accept"))
        _ = try await accounts.useLink(secret: invited, client: here) { ("fays password here", nil) }
        #expect(people.role(appId: app.id, userId: fay.id) == .viewer)

        // An account without a password needs its own link first; the invitation stays usable.
        _ = try await person("gus@example.com", password: nil)
        let early = people.addLink(kind: .invitation, email: "gus@example.com", app: app, role: .viewer)
        #expect(await refusal { try await accounts.useLink(secret: early, client: here) { ("guss password here", nil) } } == .accountNeedsItsOwnLink)
        #expect(try await accounts.liveLink(secret: early).link.usedAt == nil)

        // One whose grantor may no longer grant it (an admin no longer, whatever missed revoking
        // it) is void: used up, nothing granted.
        let boss = try await person("boss@example.com", password: nil)
        people.addMember(appId: app.id, userId: boss.id, role: .admin)
        let void = people.addLink(kind: .invitation, email: "hal@example.com", app: app, role: .admin, grantedBy: .person(userId: boss.id))
        people.addMember(appId: app.id, userId: boss.id, role: .viewer)
        #expect(await refusal { try await accounts.useLink(secret: void, client: here) { ("hals password here", nil) } } == .linkUsedOrExpired)
        #expect(await refusal { try await accounts.liveLink(secret: void) } == .linkUsedOrExpired)
        #expect(try await people.user(email: "hal@example.com") == nil)
    }
}

extension Optional {
    func asyncMap<U>(_ transform: (Wrapped) async throws -> U) async rethrows -> U? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
