import Foundation
import RiversCore
import RiversServices
import RiversStore
import Testing

/// Members, invitations and tokens over in-memory people: no PostgreSQL (the fast tier).
@Suite("Teams, in memory")
struct TeamServiceTests {
    let people = InMemoryAccounts()
    var team: TeamService { TeamService(storage: people) }
    let app = InMemoryCallers().addApp(slug: "team")

    func conflict(_ work: () async throws -> Void) async throws -> String? {
        do {
            try await work()
            return nil
        } catch StoreError.conflict(let message, _) {
            return message
        }
    }

    @Test func anAppKeepsAnAdminAndADemotedMemberKeepsNothingAbove() async throws {
        let ann = people.addPerson(email: "ann@example.com")
        let bob = people.addPerson(email: "bob@example.com")
        try await team.setRole(appId: app.id, userId: ann.id, role: .admin)
        // The last admin can be neither demoted nor removed.
        #expect(try await conflict { try await team.setRole(appId: app.id, userId: ann.id, role: .editor) }?.contains("last admin") == true)
        #expect(try await conflict { try await team.removeMember(appId: app.id, userId: ann.id) }?.contains("last admin") == true)
        await #expect(throws: StoreError.self) { try await team.setRole(appId: app.id, userId: UUIDText.random(), role: .viewer) }
        await #expect(throws: StoreError.self) { try await team.setRole(appId: app.id, userId: "not-an-id", role: .viewer) }

        // Bob, an admin too, grants things; demoted to editor he keeps only what an editor may grant.
        try await team.setRole(appId: app.id, userId: bob.id.uppercased(), role: .admin)
        let byBob = Grantor.person(userId: bob.id)
        _ = try await team.invite(appId: app.id, email: "Adm@Example.com", role: .admin, createdBy: "bob", grantedBy: byBob)
        let kept = try await team.invite(appId: app.id, email: "ed@example.com", role: .editor, createdBy: "bob", grantedBy: byBob)
        _ = try await team.createToken(appId: app.id, name: "ci", role: .publisher, createdBy: "bob", grantedBy: byBob)
        let keptToken = try await team.createToken(appId: app.id, name: "read", role: .viewer, createdBy: "bob", grantedBy: byBob)
        let annsToken = try await team.createToken(appId: app.id, name: "ann", role: .admin, createdBy: "ann", grantedBy: .person(userId: ann.id))
        #expect(people.pendingInvitations(appId: app.id).map(\.email).sorted() == ["adm@example.com", "ed@example.com"])
        try await team.setRole(appId: app.id, userId: bob.id, role: .editor)
        #expect(people.pendingInvitations(appId: app.id).map(\.id) == [kept.link.id])
        #expect(Set(people.tokens(appId: app.id).map(\.id)) == [keptToken.info.id, annsToken.info.id])

        // Removed, he keeps nothing he granted.
        try await team.removeMember(appId: app.id, userId: bob.id)
        #expect(people.pendingInvitations(appId: app.id).isEmpty && people.tokens(appId: app.id).map(\.id) == [annsToken.info.id])
        #expect(people.role(appId: app.id, userId: bob.id) == nil)
        await #expect(throws: StoreError.self) { try await team.removeMember(appId: app.id, userId: bob.id) }
    }

    @Test func invitationsAndTokensAreCappedAndWithdrawn() async throws {
        for i in 0..<Limits.maxPendingInvitationsPerApp {
            _ = try await team.invite(appId: app.id, email: "p\(i)@example.com", role: .viewer, createdBy: "ann", grantedBy: .operator)
        }
        #expect(try await conflict {
            _ = try await team.invite(appId: app.id, email: "one-more@example.com", role: .viewer, createdBy: "ann", grantedBy: .operator)
        } != nil)
        let first = try #require(people.pendingInvitations(appId: app.id).first)
        try await team.withdrawInvitation(appId: app.id, id: first.id)
        await #expect(throws: StoreError.self) { try await team.withdrawInvitation(appId: app.id, id: first.id) }
        _ = try await team.invite(appId: app.id, email: "one-more@example.com", role: .viewer, createdBy: "ann", grantedBy: .operator)
        do {
            _ = try await team.invite(appId: app.id, email: "x", role: .viewer, createdBy: "ann", grantedBy: .operator)
            Issue.record("a two-letter email was taken")
        } catch StoreError.invalid(let errors) {
            #expect(errors.map(\.pointer) == ["/email"])
        }

        for i in 0..<Limits.maxTokensPerApp { _ = try await team.createToken(appId: app.id, name: "t\(i)") }
        #expect(try await conflict { _ = try await team.createToken(appId: app.id, name: "one more") } != nil)
        let token = try #require(people.tokens(appId: app.id).first)
        try await team.revokeToken(appId: app.id, id: token.id)
        await #expect(throws: StoreError.self) { try await team.revokeToken(appId: app.id, id: token.id) }
        #expect(people.tokens(appId: app.id).count == Limits.maxTokensPerApp - 1)
    }
}
