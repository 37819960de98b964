from .conftest import Circle


def test_models_lists_the_endpoints_models_and_protocol(cli: Circle) -> None:
    done = cli.run("models")
    assert done.returncode == 0, done.stderr
    assert "speaks openai-chat" in done.stdout
    assert done.stdout.splitlines()[1:] == ["  scripted"]
    assert (cli.home / "endpoints.json").exists()


def test_models_on_a_dead_endpoint_is_one_clear_line(cli: Circle) -> None:
    env = cli.env(CIRCLE_BASE_URL="http://127.0.0.1:9/v1")
    done = cli.run("models", env=env)
    assert done.returncode == 1
    assert "cannot reach" in done.stderr and "Traceback" not in done.stderr
