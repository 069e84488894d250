// verify_probe: verify a database and probe one position with libmillaudit, from C++.
//
//   c++ -std=c++17 verify_probe.cpp $(pkg-config --cflags --libs millaudit) -o verify_probe
//   ./verify_probe games/std a1,d1,g1/a7,d7,g7      # a position: BOARD [wf=N] [bf=N]
//
// Prints the run's verdict, totals and sectors, then the position's stored value and the value of
// every turn (the facts `millaudit verify --json` and `millaudit probe --json` print), and exits
// with the status `millaudit verify` would give. Handles are owned by std::unique_ptr with the
// library's release functions, so every path out of main frees them.
#include <millaudit.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace {

template <class T, void (*Free)(T *)>
struct releaser {
    void operator()(T *p) const { Free(p); }
};
using run_ptr = std::unique_ptr<ma_vrun, releaser<ma_vrun, ma_vrun_free>>;
using probe_ptr = std::unique_ptr<ma_probe_report, releaser<ma_probe_report, ma_probe_report_free>>;

int fail(const ma_error &err)
{
    std::cerr << "verify_probe: " << err.msg << '\n';
    return ma_exit_code_for(err.code);
}

}  // namespace

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::cerr << "usage: " << argv[0] << " DIR BOARD [wf=N] [bf=N]\n";
        return 2;
    }
    if (ma_api_version() != MILLAUDIT_API_VERSION) {
        std::cerr << "verify_probe: built for API " << MILLAUDIT_API_VERSION << ", library " << ma_version()
                  << " speaks API " << ma_api_version() << '\n';
        return 5;
    }
    ma_error err{};

    // Zero is the default of every option: every online CPU, the default rows kept.
    ma_vrun_options opt{};
    opt.root = argv[1];
    ma_vrun *raw = nullptr;
    if (ma_vrun_create(&raw, &opt, &err) != MA_OK)
        return fail(err);
    run_ptr run(raw);
    int rc = ma_vrun_execute(run.get(), &err);
    if (rc != MA_OK)
        return fail(err);
    const ma_vrun_totals *t = ma_vrun_totals_of(run.get());
    std::cout << "verdict " << ma_verdict_state_name(ma_vrun_verdict_of(run.get())) << '\n'
              << "totals sectors " << t->sectors << " entries " << t->entries << " verified " << t->verified
              << " discrepancies " << t->discrepancies << '\n';
    for (size_t i = 0; i < ma_vrun_sector_count(run.get()); i++) {
        const ma_vrun_sector *s = ma_vrun_sector_at(run.get(), i);
        std::cout << "sector " << s->name << ' ' << ma_sector_status_name(s->status) << " entries " << s->entries
                  << " verified " << s->verified << " discrepancies " << s->discrepancies << '\n';
    }

    std::vector<const char *> words(argv + 2, argv + argc);
    ma_probe_run_options po{};
    po.root = argv[1];
    po.position = words.data();
    po.n_position = static_cast<int>(words.size());
    ma_probe_report *praw = nullptr;
    if (ma_probe_run(&praw, &po, &err) != MA_OK)
        return fail(err);
    probe_ptr probe(praw);
    const ma_probe_result *p = ma_probe_report_position(probe.get());
    char board[80];
    ma_board_format(p->board, board, sizeof board);
    std::cout << "position " << board << " sector " << p->name << " entry " << p->entry << ": "
              << (p->value.known ? p->value.text : "unknown") << '\n';
    for (int i = 0; i < p->n_rows; i++) {
        const ma_probe_row &row = p->rows[i];
        std::cout << "turn " << row.move << ' ' << (row.v.known ? row.v.text : "unknown") << '\n';
    }

    int status = ma_result_exit_code(ma_vrun_result(run.get(), rc));
    std::cout << "exit " << status << '\n';
    return status;
}
