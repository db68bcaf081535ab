import RiversStore
import Testing

@Suite("Migration files")
struct SQLScriptTests {
    @Test("statements split at top-level semicolons only")
    func splitting() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'semi;colon', "odd;name" int);
            /* block; comment */
            CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'no; way';
            END;
            $$;
            INSERT INTO a VALUES ('it''s; fine', 1)
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 3, "\(statements)")
        #expect(statements[0] == #"CREATE TABLE a (x text DEFAULT 'semi;colon', "odd;name" int)"#)
        #expect(statements[1].hasPrefix("CREATE FUNCTION f()") && statements[1].hasSuffix("$$"))
        #expect(statements[1].contains("RAISE EXCEPTION 'no; way';"))
        #expect(statements[2] == "INSERT INTO a VALUES ('it''s; fine', 1)")
        #expect(SQLScript.statements("  -- only a comment\n").isEmpty)
    }

    @Test("every migration file splits into statements")
    func migrationFiles() throws {
        for migration in try TestDatabase.migrations {
            #expect(!SQLScript.statements(migration.sql).isEmpty, "\(migration.name)")
        }
    }
}
