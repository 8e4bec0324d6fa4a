/* The bisection tests' repository (bisect_repo.h). */
#include "support/test.h"

#include "bisect_repo.h"

#include <git2.h>
#include <stdio.h>
#include <string.h>

#include "support/tmpdir.h"

void repo_make(repo_fixture *f, const spec *specs, size_t n)
{
    git_repository *repo;
    git_oid oids[MAXC];

    assert_true(n <= MAXC);
    assert_int_equal(test_tmpdir_make(f->dir, sizeof(f->dir), "bisect-session"), 0);
    git_libgit2_init();
    assert_int_equal(git_repository_init(&repo, f->dir, 0), 0);
    for (size_t i = 0; i < n; i++) {
        git_signature *sig;
        git_tree *base = NULL, *tree;
        git_commit *parents[2] = {NULL, NULL};
        git_tree_update up;
        git_oid blob, tree_id;
        char text[32], subject[32];
        size_t np = 0;

        snprintf(text, sizeof(text), "c%zu\n", i);
        snprintf(subject, sizeof(subject), "c%zu", i);
        assert_int_equal(git_blob_create_from_buffer(&blob, repo, text, strlen(text)), 0);
        if (specs[i].p0 >= 0) {
            assert_int_equal(git_commit_lookup(&parents[np++], repo, &oids[specs[i].p0]), 0);
            assert_int_equal(git_commit_tree(&base, parents[0]), 0);
        }
        if (specs[i].p1 >= 0)
            assert_int_equal(git_commit_lookup(&parents[np++], repo, &oids[specs[i].p1]), 0);
        memset(&up, 0, sizeof(up));
        up.action = GIT_TREE_UPDATE_UPSERT;
        git_oid_cpy(&up.id, &blob);
        up.filemode = GIT_FILEMODE_BLOB;
        up.path = specs[i].path;
        if (base) {
            assert_int_equal(git_tree_create_updated(&tree_id, repo, base, 1, &up), 0);
        } else {
            git_treebuilder *tb;
            assert_int_equal(git_treebuilder_new(&tb, repo, NULL), 0);
            assert_int_equal(git_treebuilder_write(&tree_id, tb), 0);
            git_treebuilder_free(tb);
            assert_int_equal(git_tree_lookup(&base, repo, &tree_id), 0);
            assert_int_equal(git_tree_create_updated(&tree_id, repo, base, 1, &up), 0);
        }
        assert_int_equal(git_tree_lookup(&tree, repo, &tree_id), 0);
        /* One minute apart, so that date order is commit order. */
        assert_int_equal(git_signature_new(&sig, "culprit", "culprit@example.invalid",
                                           1700000000 + 60 * (git_time_t)i, 0),
                         0);
        assert_int_equal(git_commit_create(&oids[i], repo, NULL, sig, sig, NULL, subject, tree, np,
                                           (const git_commit **)parents),
                         0);
        git_oid_tostr(f->sha[i], 41, &oids[i]);
        git_signature_free(sig);
        git_tree_free(tree);
        git_tree_free(base);
        git_commit_free(parents[0]);
        git_commit_free(parents[1]);
    }
    f->n = n;
    git_repository_free(repo);
}

void repo_remove(repo_fixture *f)
{
    test_tmpdir_remove(f->dir);
}
