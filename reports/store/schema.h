/*
 * reports/store/schema: the SQL of the migrations that table groups other than audit.c's own define
 * (reports/store/audit.c registers every migration in one ordered table, docs/audit-schema.md). A header
 * of its own, so that audit.c needs none of the modules that write those tables and the modules
 * need nothing of audit.c but its public store handle: no include runs in a circle.
 */
#ifndef MA_STORE_SCHEMA_H
#define MA_STORE_SCHEMA_H

extern const char ma_audit_game_migration_v5[];      /* reports/store/audit_game.c: opening and grade runs */
extern const char ma_audit_merge_migration_v6[];     /* reports/store/audit_merge.c: merged shard runs */
extern const char ma_audit_inventory_migration_v9[]; /* reports/store/audit_inventory.c: inventory, partition */
extern const char ma_audit_seal_migration_v10[];     /* reports/store/audit_seal.c: scope, seals */
extern const char ma_audit_integrity_migration_v11[]; /* reports/store/audit_integrity.c: damaged files */

#endif
