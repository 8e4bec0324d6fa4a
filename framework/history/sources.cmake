# sources of framework/history are added here
