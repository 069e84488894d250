/*
 * The program of the link proofs (tests/link/CMakeLists.txt): it calls nothing. What is tested is
 * the link itself: every object of one side's archives is pulled in with --whole-archive, so each
 * of their undefined references must be met by that side or common/, never by the other side.
 */
int main(void)
{
    return 0;
}
