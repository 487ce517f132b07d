/* Unit tests of the pane registry (tui/panes/pane_list.h): every pane is
 * one record in its own file, so what the rest of the console assumes of
 * a record is checked here, for every pane the registry lists: a key of
 * its own, views that fit the session's screen, columns that fit a row,
 * a cell formatter for each computed column, forms that exist, and the
 * same owner fields and completion sources the console had before the
 * records (one table per pane in place of five parallel arrays). */
#include "testutil.h"

#include <string.h>

#include "dash.h"
#include "form.h"
#include "panes.h"

static void test_every_pane_has_its_own_key(void **state)
{
    (void)state;
    for (int i = 0; i < PANE_COUNT; i++) {
        const pane_def *p = pane_get(i);
        assert_non_null(p);
        assert_non_null(p->name);
        assert_non_null(p->mid);
        assert_non_null(p->tiny);
        assert_true(p->key != 0);
        assert_int_equal(pane_of_key(pane_key(i)), i);
    }
    assert_null(pane_get(PANE_COUNT));
    assert_int_equal(pane_of_key('x'), -1);
    /* the keys the documentation and the tests press */
    assert_int_equal(pane_of_key('3'), PANE_NODES);
    assert_int_equal(pane_of_key('6'), PANE_JOBS);
    assert_int_equal(pane_of_key('0'), PANE_DASHBOARD);
    assert_int_equal(pane_of_key('!'), PANE_ALERTS);
}

static void test_every_view_fits_its_screen(void **state)
{
    (void)state;
    for (int i = 0; i < PANE_COUNT; i++) {
        const pane_def *p = pane_get(i);
        assert_true(p->nviews >= 1 && p->nviews <= PANE_MAX_VIEWS);
        for (size_t v = 0; v < p->nviews; v++) {
            const pane_view *pv = pane_view_get(i, (int)v);
            assert_ptr_equal(pv, &p->views[v]);
            assert_non_null(pv->title);
            assert_non_null(pv->key_field);
            assert_non_null(pv->empty_note);
            assert_true(pv->list_cmd || pv->load);      /* something fills it */
            assert_true(pv->ncols <= 16);               /* panes_fill_row's cells */
            assert_true(pv->sort_by >= 0 && (size_t)pv->sort_by <= pv->ncols);
            assert_true(pv->kinds != 0);                /* something makes it stale */
            assert_true(pv->add_form == FORM_NONE || form_get(pv->add_form) != NULL);
            assert_true(pv->edit_form == FORM_NONE || form_get(pv->edit_form) != NULL);
        }
        assert_null(pane_view_get(i, (int)p->nviews));
    }
}

static void test_computed_cells_have_a_formatter(void **state)
{
    (void)state;
    json_t *empty = json_object();
    for (int i = 0; i < PANE_COUNT; i++)
        for (size_t v = 0; v < pane_get(i)->nviews; v++) {
            const pane_view *pv = pane_view_get(i, (int)v);
            for (size_t k = 0; k < pv->ncols; k++) {
                if (pv->cols[k].field[0] != '@')
                    continue;
                char out[256] = "";
                double bar = -1;
                assert_non_null(pv->cell);
                pv->cell(empty, pv->cols[k].field, out, sizeof out, &bar);
                /* "?" is a formatter's answer to a field it does not know */
                if (strcmp(out, "?") == 0)
                    fail_msg("%s/%s: no text for %s", pane_get(i)->name, pv->title, pv->cols[k].field);
            }
        }
    json_decref(empty);
}

static void test_owner_fields_and_names(void **state)
{
    (void)state;
    /* where the keys look for the account that owns a row */
    assert_string_equal(pane_owner_field(PANE_PROVIDERS, 0), "owner");
    assert_string_equal(pane_owner_field(PANE_REGIONS, 0), "owner");
    assert_string_equal(pane_owner_field(PANE_NODES, 0), "owner");
    assert_string_equal(pane_owner_field(PANE_JOBS, 1), "owner");
    assert_string_equal(pane_owner_field(PANE_BILLING, 0), "account");
    assert_null(pane_owner_field(PANE_JOBS, 0));
    assert_null(pane_owner_field(PANE_AUDIT, 0));
    /* each kind of name completion offers comes from one table at most */
    static const struct { names_kind k; int pane, view; } want[] = {
        { NAMES_NODE, PANE_NODES, 0 }, { NAMES_REGION, PANE_REGIONS, 0 }, { NAMES_DEVICE, PANE_DEVICES, 0 },
        { NAMES_JOB, PANE_JOBS, 0 }, { NAMES_ACCOUNT, PANE_BILLING, 0 }, { NAMES_DATASTORE, PANE_STORES, 0 },
        { NAMES_RESERVATION, PANE_STORES, 1 }, { NAMES_CONFIG, PANE_DEVICES, 1 }, { NAMES_PROJECT, PANE_JOBS, 1 },
    };
    size_t found = 0;
    for (int i = 0; i < PANE_COUNT; i++)
        for (size_t v = 0; v < pane_get(i)->nviews; v++) {
            names_kind k = pane_view_get(i, (int)v)->names;
            if (k == NAMES_NONE)
                continue;
            found++;
            size_t w = 0;
            while (w < sizeof want / sizeof want[0] && want[w].k != k)
                w++;
            assert_true(w < sizeof want / sizeof want[0]);
            assert_int_equal(want[w].pane, i);
            assert_int_equal(want[w].view, (int)v);
        }
    assert_int_equal(found, sizeof want / sizeof want[0]);
}

static void test_screens_own_their_state(void **state)
{
    (void)state;
    static session c;
    memset(&c, 0, sizeof c);
    assert_true(panes_init(&c));
    /* the Dashboard's state is its screen's, made by its record */
    assert_non_null(dash_of(&c));
    assert_ptr_equal(dash_of(&c), c.screens[PANE_DASHBOARD].own);
    assert_string_equal(dash_of(&c)->node, "");
    for (int i = 0; i < PANE_COUNT; i++) {
        assert_true(!pane_get(i)->own_new == !c.screens[i].own);
        assert_int_equal(c.screens[i].view, 0);
        assert_true(c.screens[i].tables[0].stale);
    }
    panes_free(&c);
    assert_null(c.screens[PANE_DASHBOARD].own);
    panes_free(&c);     /* twice: nothing left to free */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_pane_has_its_own_key),
        cmocka_unit_test(test_every_view_fits_its_screen),
        cmocka_unit_test(test_computed_cells_have_a_formatter),
        cmocka_unit_test(test_owner_fields_and_names),
        cmocka_unit_test(test_screens_own_their_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
