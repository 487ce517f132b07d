/* Unit tests of the Fleet map's geometry and shading (fleetmap.c): the
 * block layout (a heading line, cells wrapping under it), the flow layout
 * taken when blocks do not fit (10,000 nodes in 10 regions in 196x53),
 * moving up and down across groups, scrolling, levels and their glyphs;
 * cells of two kinds (a region's devices after its nodes, past a
 * separator) in both layouts. */
#include "testutil.h"

#include <math.h>

#include "fleetmap.h"

static void test_blocks_when_they_fit(void **state)
{
    (void)state;
    fmap_layout L = { 0 };
    size_t count[2] = { 5, 3 };
    int head_w[2] = { 5, 4 };
    assert_true(fmap_lay(&L, count, NULL, head_w, 2, 4, 10));
    assert_int_equal(L.flow, 0);
    /* "dc" on line 0, its 5 cells on lines 1-2; "lab" on 3, cells on 4 */
    assert_int_equal(L.head_y[0], 0);
    assert_int_equal(L.cell_y[0], 1);
    assert_int_equal(L.cell_x[3], 3);
    assert_int_equal(L.cell_y[4], 2);
    assert_int_equal(L.cell_x[4], 0);
    assert_int_equal(L.head_y[1], 3);
    assert_int_equal(L.cell_y[5], 4);
    assert_int_equal(L.cell_x[7], 2);
    assert_int_equal(L.lines, 5);
    fmap_free(&L);
}

static void test_flow_when_blocks_do_not_fit(void **state)
{
    (void)state;
    fmap_layout L = { 0 };
    size_t count[10];
    int head_w[10];
    for (int g = 0; g < 10; g++) {
        count[g] = 1000;
        head_w[g] = 4;   /* "r0: " */
    }
    assert_true(fmap_lay(&L, count, NULL, head_w, 10, 196, 53));
    assert_int_equal(L.flow, 1);
    assert_true(L.lines <= 53);
    assert_int_equal(L.n, 10000);
    /* the first group's cells follow its heading on the same line */
    assert_int_equal(L.head_x[0], 0);
    assert_int_equal(L.cell_y[0], 0);
    assert_int_equal(L.cell_x[0], 4);
    /* every cell inside the width, in line order, none on another's place */
    for (size_t k = 0; k < L.n; k++) {
        assert_true(L.cell_x[k] >= 0 && L.cell_x[k] < 196);
        if (k)
            assert_true(L.cell_y[k] > L.cell_y[k - 1] ||
                        (L.cell_y[k] == L.cell_y[k - 1] && L.cell_x[k] > L.cell_x[k - 1]));
    }
    /* the second group begins after a blank, its heading unsplit */
    assert_true(L.head_x[1] + 4 <= 196);
    fmap_free(&L);
}

static void test_devices_follow_the_nodes(void **state)
{
    (void)state;
    fmap_layout L = { 0 };
    size_t count[3] = { 3, 0, 2 }, dcount[3] = { 2, 1, 0 };
    int head_w[3] = { 4, 4, 4 };
    /* blocks, 4 wide: "r0" / NNN| / DD ; "r1" / |D ; "r2" / NN */
    assert_true(fmap_lay(&L, count, dcount, head_w, 3, 4, 10));
    assert_int_equal(L.flow, 0);
    assert_int_equal(L.n, 8);
    assert_int_equal(L.kind[2], FMAP_NODE);
    assert_int_equal(L.sep_y[0], 1);
    assert_int_equal(L.sep_x[0], 3);
    assert_int_equal(L.kind[3], FMAP_DEVICE);
    assert_int_equal(L.cell_y[3], 2);
    assert_int_equal(L.cell_x[3], 0);
    assert_int_equal(L.cell_x[4], 1);
    /* a group of devices only still has its separator, first */
    assert_int_equal(L.head_y[1], 3);
    assert_int_equal(L.sep_y[1], 4);
    assert_int_equal(L.sep_x[1], 0);
    assert_int_equal(L.kind[5], FMAP_DEVICE);
    assert_int_equal(L.cell_x[5], 1);
    /* a group without devices has none */
    assert_int_equal(L.sep_y[2], -1);
    assert_int_equal(L.kind[6], FMAP_NODE);
    assert_int_equal(L.cell_y[6], 6);
    assert_int_equal(L.lines, 7);
    /* down from the first node lands on a device, as any cell below */
    assert_int_equal(fmap_vertical(&L, 0, 1), 3);
    /* flow (2 lines are too few for blocks): "r0: NNN|DD r1: |D r2: NN" */
    assert_true(fmap_lay(&L, count, dcount, head_w, 3, 40, 2));
    assert_int_equal(L.flow, 1);
    assert_int_equal(L.cell_x[0], 4);
    assert_int_equal(L.sep_x[0], 7);
    assert_int_equal(L.cell_x[3], 8);
    assert_int_equal(L.kind[4], FMAP_DEVICE);
    assert_int_equal(L.head_x[1], 11);
    assert_int_equal(L.sep_x[1], 15);
    assert_int_equal(L.cell_x[5], 16);
    assert_int_equal(L.head_x[2], 18);
    assert_int_equal(L.cell_x[6], 22);
    assert_int_equal(L.sep_y[2], -1);
    assert_int_equal(L.lines, 1);
    fmap_free(&L);
}

static void test_vertical_moves(void **state)
{
    (void)state;
    fmap_layout L = { 0 };
    size_t count[2] = { 5, 3 };
    int head_w[2] = { 5, 4 };
    assert_true(fmap_lay(&L, count, NULL, head_w, 2, 4, 10));
    assert_int_equal(fmap_vertical(&L, 1, 1), 4);   /* under cell 1 only cell 4 (column 0) is left */
    assert_int_equal(fmap_vertical(&L, 4, 1), 5);   /* over the heading to the next group */
    assert_int_equal(fmap_vertical(&L, 6, -1), 4);
    assert_int_equal(fmap_vertical(&L, 2, -1), 2);  /* the top line: stays */
    assert_int_equal(fmap_vertical(&L, 7, 1), 7);
    fmap_free(&L);
}

static void test_scroll(void **state)
{
    (void)state;
    assert_int_equal(fmap_scroll(0, 5, 10, 60), 0);
    assert_int_equal(fmap_scroll(0, 12, 10, 60), 3);
    assert_int_equal(fmap_scroll(20, 12, 10, 60), 12);
    assert_int_equal(fmap_scroll(55, 59, 10, 60), 50);
    assert_int_equal(fmap_scroll(4, 2, 10, 5), 0);
}

static void test_levels_and_shades(void **state)
{
    (void)state;
    assert_int_equal(fmap_level(NAN, 0, 100, 5), -1);
    assert_int_equal(fmap_level(-3, 0, 100, 5), 0);
    assert_int_equal(fmap_level(19.9, 0, 100, 5), 0);
    assert_int_equal(fmap_level(20, 0, 100, 5), 1);
    assert_int_equal(fmap_level(79, 0, 100, 5), 3);
    assert_int_equal(fmap_level(100, 0, 100, 5), 4);
    assert_int_equal(fmap_level(500, 30, 90, 5), 4);
    assert_int_equal(fmap_shade(-1), '?');
    assert_int_equal(fmap_shade(0), '.');
    assert_int_equal(fmap_shade(4), '@');
    /* each level its own glyph: legible without colour */
    for (int a = 0; a < FMAP_SHADES; a++)
        for (int b = a + 1; b < FMAP_SHADES; b++)
            assert_true(fmap_shade(a) != fmap_shade(b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_when_they_fit),
        cmocka_unit_test(test_flow_when_blocks_do_not_fit),
        cmocka_unit_test(test_devices_follow_the_nodes),
        cmocka_unit_test(test_vertical_moves),
        cmocka_unit_test(test_scroll),
        cmocka_unit_test(test_levels_and_shades),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
